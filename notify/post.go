package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// TelegramAPI is the Telegram Bot API's address, unless api_url says
// another.
const TelegramAPI = "https://api.telegram.org"

// message is what event ev says, and whether it is one a notifier posts.
func message(ev runlog.Event, task string) (Message, bool) {
	m := Message{Iteration: ev.Iteration}
	about := ""
	if task != "" {
		about = "task: " + runlog.Clip(runlog.FirstLine(task), 200)
	}
	switch ev.Type {
	case runlog.EventLoopStarted:
		m.Event, m.Title = "started", "architect: the loop started"
		if ev.Resumed {
			m.Title = "architect: the loop resumed"
		}
		m.Text = about
	case runlog.EventQuestion:
		m.Event, m.Title = "question", fmt.Sprintf("architect: the agent asks (iteration %d)", ev.Iteration)
		m.Question, m.Until = ev.Text, ev.Until
		m.Text = ev.Text + "\n\nAnswer with `architect answer \"…\"` in the workspace" + replyHint
		if ev.Until != "" {
			m.Text += "; the loop waits until " + ev.Until
		}
	case runlog.EventUsageLimitWait:
		m.Event, m.Title = "usage_limit_wait", "architect: waiting for a usage limit"
		m.Text = fmt.Sprintf("the agent hit its usage limit; the loop waits until %s", ev.Until)
	case runlog.EventLoopFinished:
		n := ev.Iteration
		if ev.TotalIterations != nil {
			n = *ev.TotalIterations
		}
		cost := ""
		if ev.TotalCost != nil {
			cost = fmt.Sprintf(", $%.2f", *ev.TotalCost)
		}
		m.StopReason = ev.StopReason
		switch {
		case ev.Success != nil && *ev.Success:
			m.Event, m.Title = "success", "architect: success"
			m.Text = fmt.Sprintf("all checks pass after %d iteration%s%s", n, plural(n), cost)
			if ev.NoChecks {
				m.Text = fmt.Sprintf("the agent declared completion after %d iteration%s%s; no check was run", n, plural(n), cost)
			}
		case ev.StopReason == runlog.StopMaxIterations || ev.StopReason == runlog.StopBudget || ev.StopReason == runlog.StopTimeout:
			m.Event, m.Title = "limit", "architect: limit reached"
			m.Text = fmt.Sprintf("stopped on %s after %d iteration%s%s", strings.ReplaceAll(ev.StopReason, "_", " "), n, plural(n), cost)
		default:
			m.Event, m.Title = "failure", "architect: no success"
			m.Text = fmt.Sprintf("stopped on %s after %d iteration%s%s", strings.ReplaceAll(ev.StopReason, "_", " "), n, plural(n), cost)
		}
		if ev.StopDetail != "" {
			m.Text += ": " + runlog.Clip(ev.StopDetail, 300)
		}
		if about != "" {
			m.Text += "\n" + about
		}
	default:
		return m, false
	}
	return m, true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// replyHint marks, in a question's text, where a service that takes
// replies (Telegram; ntfy with replies: true) says how to reply there; the
// others (Slack, the webhook, ntfy without replies) say nothing more.
const replyHint = "\x00reply"

// post sends m to t; for a Telegram question, it then looks for the
// replies to the message sent.
func (o *Observer) post(t *Target, m Message) error {
	reply := ""
	switch {
	case t.Type == config.NotifyTelegram:
		reply = ", or reply to this message"
	case t.Type == config.NotifyNtfy && t.Replies:
		reply = ", or publish the answer to this topic"
	}
	m.Text = strings.Replace(m.Text, replyHint, reply, 1)
	m.Title, m.Text, m.Question = o.opts.Redact(m.Title), o.opts.Redact(m.Text), o.opts.Redact(m.Question)
	ctx, cancel := context.WithTimeout(o.ctx, o.opts.Timeout)
	defer cancel()
	switch t.Type {
	case config.NotifySlack:
		_, err := o.postJSON(ctx, t.URL, map[string]any{"text": "*" + m.Title + "*\n" + m.Text}, nil)
		return err
	case config.NotifyTelegram:
		body, err := o.postJSON(ctx, telegramURL(t, "sendMessage"), map[string]any{"chat_id": t.ChatID, "text": m.Title + "\n\n" + m.Text}, nil)
		if err != nil {
			return err
		}
		if m.Event == "question" {
			var r struct {
				Result struct {
					MessageID int64 `json:"message_id"`
				} `json:"result"`
			}
			if json.Unmarshal(body, &r) != nil || r.Result.MessageID == 0 {
				return errors.New("telegram did not say which message it sent: replies to it cannot be matched")
			}
			o.pollReplies(m.Iteration, func(ctx context.Context, ws string) { o.poll(ctx, t, ws, m.Iteration, r.Result.MessageID) })
		}
		return nil
	case config.NotifyNtfy:
		text := m.Text
		h := http.Header{"Title": {m.Title}, "Tags": {m.Event}}
		if t.Token != "" {
			h.Set("Authorization", "Bearer "+t.Token)
		}
		asked := time.Now().Unix()
		body, err := o.do(ctx, http.MethodPost, t.URL, strings.NewReader(text), h)
		if err != nil || !t.Replies {
			return err
		}
		id, at := ntfyPublished(body)
		o.remember(id)
		if m.Event == "question" {
			if at == 0 {
				at = asked
			}
			o.pollReplies(m.Iteration, func(ctx context.Context, ws string) { o.pollNtfy(ctx, t, ws, m.Iteration, id, at) })
		}
		return nil
	case config.NotifyWebhook:
		_, err := o.postJSON(ctx, t.URL, webhookBody(m), nil)
		return err
	}
	return fmt.Errorf("unknown notifier type %q", t.Type)
}

// webhookBody is the generic webhook's JSON.
func webhookBody(m Message) map[string]any {
	b := map[string]any{"source": "architect", "event": m.Event, "title": m.Title, "text": m.Text, "iteration": m.Iteration,
		"workspace": m.Workspace, "branch": m.Branch}
	if m.StopReason != "" {
		b["stop_reason"] = m.StopReason
	}
	if m.Question != "" {
		b["question"] = m.Question
		b["until"] = m.Until
	}
	return b
}

func telegramURL(t *Target, method string) string {
	base := strings.TrimRight(t.APIURL, "/")
	if base == "" {
		base = TelegramAPI
	}
	return base + "/bot" + t.Token + "/" + method
}

func (o *Observer) postJSON(ctx context.Context, u string, v any, h http.Header) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/json")
	return o.do(ctx, http.MethodPost, u, bytes.NewReader(data), h)
}

// maxResponse bounds what is read of a service's answer.
const maxResponse = 1 << 20

// do makes one request and returns the response's body (at most
// maxResponse bytes). Its errors never hold the URL, which may hold a
// secret (the bot token, the webhook's key).
func (o *Observer) do(ctx context.Context, method, u string, body io.Reader, h http.Header) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, errors.New("the URL cannot be used")
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", "architect")
	resp, err := o.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer within %s", o.opts.Timeout)
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, runlog.Clip(runlog.FirstLine(strings.TrimSpace(string(data))), 200))
	}
	return data, nil
}
