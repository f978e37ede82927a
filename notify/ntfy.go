package notify

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/runlog"
)

// A question posted to an ntfy topic whose notifier takes replies
// (replies: true) is answered by publishing a message to the topic: ntfy
// has no threads, so the first message after the question that is not
// architect's own is the answer. While the question waits, the observer
// polls the topic's cached messages (GET <topic>/json?poll=1&since=<id of
// the question's message>) and hands the answer to the loop as `architect
// answer` does (runlog.WriteAnswer). architect's own messages are known by
// their title, which always begins with ntfyMarker, and by the ids ntfy
// gave the messages this run published.

// ntfyMarker begins the title of every message architect publishes.
const ntfyMarker = "architect:"

// ntfyPollGap is the time between two polls of the topic.
var ntfyPollGap = 3 * time.Second

// maxOwnIDs bounds the ids of published messages kept.
const maxOwnIDs = 256

// ntfyMessage is one line of ntfy's JSON stream.
type ntfyMessage struct {
	ID      string   `json:"id"`
	Time    int64    `json:"time"`
	Event   string   `json:"event"`
	Message string   `json:"message"`
	Title   string   `json:"title"`
	Tags    []string `json:"tags"`
}

// ntfyPublished reads ntfy's answer to a publish: the message's id and
// time ("", 0 when it says neither).
func ntfyPublished(body []byte) (string, int64) {
	var m ntfyMessage
	if json.Unmarshal(bytes.TrimSpace(body), &m) != nil {
		return "", 0
	}
	return m.ID, m.Time
}

// ntfyAnswer reads a poll's response (one JSON message a line): the text
// of the first message that answers the question published at time since
// (unix seconds), and the id of the last message read, from which the
// next poll goes on. Lines that are not JSON, events other than
// messages, messages older than the question, architect's own (own: their
// ids) and empty ones are passed over.
func ntfyAnswer(body []byte, since int64, own func(id string) bool) (answer, last string) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64*1024), maxResponse)
	for sc.Scan() {
		var m ntfyMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == "" {
			continue
		}
		last = m.ID
		switch {
		case m.Event != "message",
			m.Time < since,
			own(m.ID),
			strings.HasPrefix(strings.TrimSpace(m.Title), ntfyMarker),
			strings.TrimSpace(m.Message) == "":
			continue
		}
		return strings.TrimSpace(m.Message), last
	}
	return "", last
}

// ntfyPollURL is the topic's poll address: <topic>/json?poll=1&since=…
func ntfyPollURL(topic, since string) (string, error) {
	u, err := url.Parse(topic)
	if err != nil {
		return "", err
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/json"
	u.RawPath = ""
	q := u.Query()
	q.Set("poll", "1")
	q.Set("since", since)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// remember keeps id as one of the messages this run published.
func (o *Observer) remember(id string) {
	if id == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ownIDs == nil {
		o.ownIDs = map[string]bool{}
	}
	if len(o.ownIDs) < maxOwnIDs {
		o.ownIDs[id] = true
	}
}

func (o *Observer) isOwn(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ownIDs[id]
}

// pollNtfy polls t's topic for the answer to the question of iteration,
// published as message id at time at, until one comes or ctx ends.
func (o *Observer) pollNtfy(ctx context.Context, t *Target, workspace string, iteration int, id string, at int64) {
	since := id
	if since == "" {
		since = strconv.FormatInt(at, 10)
	}
	warned := false
	fail := func(err error) bool {
		if ctx.Err() != nil {
			return false
		}
		if !warned {
			o.warn("notifiers: reading the ntfy replies failed: %s; trying again every %s", o.opts.Redact(err.Error()), ntfyPollGap)
			warned = true
		}
		return sleep(ctx, ntfyPollGap)
	}
	for ctx.Err() == nil {
		u, err := ntfyPollURL(t.URL, since)
		if err != nil {
			o.warn("notifiers: the ntfy topic URL cannot be polled: replies are not read")
			return
		}
		h := http.Header{}
		if t.Token != "" {
			h.Set("Authorization", "Bearer "+t.Token)
		}
		rctx, cancel := context.WithTimeout(ctx, o.opts.Timeout)
		body, err := o.do(rctx, http.MethodGet, u, nil, h)
		cancel()
		if err != nil {
			if !fail(err) {
				return
			}
			continue
		}
		answer, last := ntfyAnswer(body, at, o.isOwn)
		if last != "" {
			since = last
		}
		if answer != "" {
			if len(answer) > runlog.MaxAnswerBytes {
				answer = answer[:runlog.MaxAnswerBytes]
			}
			if err := runlog.WriteAnswer(workspace, iteration, answer, "ntfy"); err != nil {
				o.warn("notifiers: the ntfy reply could not be handed to the loop: %s", err)
			} else {
				return
			}
		}
		if !sleep(ctx, ntfyPollGap) {
			return
		}
	}
}
