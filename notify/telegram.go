package notify

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/architect-dev/architect/runlog"
)

// A question posted to Telegram is answered by replying to its message
// (Telegram's "Reply"): while the question waits, the observer polls the
// bot's updates (getUpdates, long polling) for a message in the notifier's
// chat that replies to the question's message, and hands its text to the
// loop as `architect answer` does (runlog.WriteAnswer). Other messages are
// passed over. The poll ends when the question is answered or timed out,
// or the run ends.

// longPoll is how long one getUpdates call may wait for an update;
// pollGap the least time between two calls, retryGap after a failure.
const (
	longPoll = 25 * time.Second
	pollGap  = time.Second
	retryGap = 5 * time.Second
)

// setPending says which iteration's question waits (0: none), and ends the
// poll of any other.
func (o *Observer) setPending(iteration int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending == iteration {
		return
	}
	o.pending = iteration
	if o.polling != nil {
		o.polling()
		o.polling = nil
	}
}

// pollReplies starts poll, the look for the replies to the question of
// iteration (Telegram's or ntfy's), if that question still waits; poll
// gets the run's workspace and ends with its context.
func (o *Observer) pollReplies(iteration int, poll func(ctx context.Context, workspace string)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending != iteration || o.workspace == "" {
		return
	}
	ctx, cancel := context.WithCancel(o.ctx)
	ws := o.workspace
	prev := o.polling
	o.polling = func() {
		if prev != nil {
			prev()
		}
		cancel()
	}
	o.pollWG.Add(1)
	go func() {
		defer o.pollWG.Done()
		defer cancel()
		poll(ctx, ws)
	}()
}

type tgUpdate struct {
	UpdateID int64 `json:"update_id"`
	Message  *struct {
		MessageID int64  `json:"message_id"`
		Text      string `json:"text"`
		Chat      struct {
			ID int64 `json:"id"`
		} `json:"chat"`
		ReplyTo *struct {
			MessageID int64 `json:"message_id"`
		} `json:"reply_to_message"`
	} `json:"message"`
}

// poll asks for the bot's updates until a reply to msgID in t's chat
// comes, or ctx ends.
func (o *Observer) poll(ctx context.Context, t *Target, workspace string, iteration int, msgID int64) {
	var offset int64
	warned := false
	for ctx.Err() == nil {
		began := time.Now()
		q := url.Values{"timeout": {strconv.Itoa(int(longPoll.Seconds()))}, "allowed_updates": {`["message"]`}}
		if offset > 0 {
			q.Set("offset", strconv.FormatInt(offset, 10))
		}
		rctx, cancel := context.WithTimeout(ctx, longPoll+o.opts.Timeout)
		body, err := o.do(rctx, http.MethodGet, telegramURL(t, "getUpdates")+"?"+q.Encode(), nil, nil)
		cancel()
		var r struct {
			OK     bool       `json:"ok"`
			Result []tgUpdate `json:"result"`
		}
		if err == nil && json.Unmarshal(body, &r) != nil {
			err = errNotUpdates
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !warned {
				o.warn("notifiers: reading the Telegram replies failed: %s; trying again every %s", o.opts.Redact(err.Error()), retryGap)
				warned = true
			}
			if !sleep(ctx, retryGap) {
				return
			}
			continue
		}
		for _, u := range r.Result {
			offset = max(offset, u.UpdateID+1)
			m := u.Message
			if m == nil || m.ReplyTo == nil || m.ReplyTo.MessageID != msgID || strconv.FormatInt(m.Chat.ID, 10) != t.ChatID || m.Text == "" {
				continue
			}
			text := m.Text
			if len(text) > runlog.MaxAnswerBytes {
				text = text[:runlog.MaxAnswerBytes]
			}
			if err := runlog.WriteAnswer(workspace, iteration, text, "telegram"); err != nil {
				o.warn("notifiers: the Telegram reply could not be handed to the loop: %s", err)
				continue
			}
			return
		}
		if !sleep(ctx, pollGap-time.Since(began)) {
			return
		}
	}
}

type pollError string

func (e pollError) Error() string { return string(e) }

const errNotUpdates = pollError("the answer is not a list of updates")

// sleep waits d, or until ctx ends (then it reports false).
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
