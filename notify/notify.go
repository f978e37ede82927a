// Package notify posts a run's events to the services people watch from
// afar (a Slack incoming webhook, a Telegram bot, an ntfy topic, a JSON
// webhook) and brings the answers to an agent's question back from those
// that allow replies (Telegram, ntfy with replies: true). It is an observer of the loop's events,
// beside hooks: it reads runlog, never the loop, and hands an answer to
// the loop the way `architect answer` does, through runlog.WriteAnswer.
//
// Nothing here can hold up or end the loop: Observe only queues, a worker
// posts with a short timeout, and a post that fails is a warning.
package notify

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// DefaultTimeout bounds each post.
const DefaultTimeout = 10 * time.Second

// queueSize bounds the messages waiting to be posted: past it, a message
// is dropped (and said) rather than the loop held up.
const queueSize = 64

// Target is a notifier with its secrets read from the environment.
type Target struct {
	config.Notifier
	URL   string // the webhook or topic URL (slack, ntfy, webhook)
	Token string // the bot token (telegram) or access token (ntfy)
}

// Resolve reads the notifiers' secrets from the environment (lookup);
// a variable that is not set is an error naming it.
func Resolve(ns []config.Notifier, lookup func(string) (string, bool)) ([]Target, error) {
	var ts []Target
	var missing []string
	for _, n := range ns {
		t := Target{Notifier: n}
		if n.URLEnv != "" {
			v, ok := lookup(n.URLEnv)
			if !ok || strings.TrimSpace(v) == "" {
				missing = append(missing, n.URLEnv+" ("+n.Type+")")
			}
			t.URL = strings.TrimSpace(v)
		}
		if n.TokenEnv != "" {
			v, ok := lookup(n.TokenEnv)
			if !ok || strings.TrimSpace(v) == "" {
				missing = append(missing, n.TokenEnv+" ("+n.Type+")")
			}
			t.Token = strings.TrimSpace(v)
		}
		ts = append(ts, t)
	}
	if len(missing) > 0 {
		return nil, &usererr.Error{Msg: "notifiers: not set in the environment: " + strings.Join(missing, ", "),
			Hint: "export the variables the notifiers: entries of ralph.yaml name (url_env, token_env), or remove those entries"}
	}
	return ts, nil
}

// Options configure an Observer.
type Options struct {
	Targets []Target
	// Log receives the warnings ("architect: warning: …").
	Log io.Writer
	// Redact masks secrets in what is said and posted; nil masks nothing.
	Redact func(string) string
	// Timeout bounds each post; 0 means DefaultTimeout.
	Timeout time.Duration
	// Client makes the requests; nil means a client of its own.
	Client *http.Client
	// Task names the run in the messages.
	Task string
}

// Message is what one event says, the same for every service.
type Message struct {
	Event     string // one of config.NotifyEvents
	Title     string
	Text      string
	Iteration int
	// Workspace, Branch: the run's; StopReason: a finished run's.
	Workspace, Branch, StopReason string
	Question                      string // the question event's
	Until                         string // question: when the wait ends without an answer
}

// Observer posts a run's events. Its Observe is called from the loop's
// event emitter, one event at a time; Close ends it.
type Observer struct {
	opts   Options
	client *http.Client
	queue  chan Message
	done   chan struct{}

	ctx    context.Context // ends the reply polls (Close)
	cancel context.CancelFunc

	workspace, branch string

	mu      sync.Mutex
	pending int                // the iteration whose question waits; 0: none
	polling context.CancelFunc // ends the replies' poll of that question
	pollWG  sync.WaitGroup
	ownIDs  map[string]bool // the ids of the ntfy messages this run published
}

// New returns an Observer; its worker runs until Close.
func New(opts Options) *Observer {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	c := opts.Client
	if c == nil {
		c = &http.Client{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := &Observer{opts: opts, client: c, queue: make(chan Message, queueSize), done: make(chan struct{}), ctx: ctx, cancel: cancel}
	go o.work()
	return o
}

// Observe turns the loop's events into messages, queued for posting: it
// never waits for a post.
func (o *Observer) Observe(ev runlog.Event) {
	switch ev.Type {
	case runlog.EventLoopStarted:
		o.mu.Lock()
		o.workspace, o.branch = ev.Workspace, ev.Branch
		o.mu.Unlock()
	case runlog.EventQuestion:
		o.setPending(ev.Iteration)
	case runlog.EventAnswered, runlog.EventQuestionTimeout, runlog.EventLoopFinished:
		o.setPending(0)
	}
	m, ok := message(ev, o.opts.Task)
	if !ok {
		return
	}
	o.mu.Lock()
	m.Workspace, m.Branch = o.workspace, o.branch
	o.mu.Unlock()
	select {
	case o.queue <- m:
	default:
		o.warn("notifiers: %d messages are waiting to be posted: the %s message is dropped", queueSize, m.Event)
	}
}

// Close posts what is queued, for at most wait, then ends the worker and
// the reply polls.
func (o *Observer) Close(wait time.Duration) {
	o.setPending(0)
	close(o.queue)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-o.done:
	case <-t.C:
		o.warn("notifiers: posting took longer than %s: the messages left are dropped", wait)
	}
	o.cancel() // the post under way ends at once, and the worker with it
	<-o.done
	o.pollWG.Wait()
}

// work posts the queued messages, in order, to every target that takes
// their event.
func (o *Observer) work() {
	defer close(o.done)
	for m := range o.queue {
		if o.ctx.Err() != nil {
			continue // closed: what is left is dropped, said once by Close
		}
		for i := range o.opts.Targets {
			t := &o.opts.Targets[i]
			if !t.Posts(m.Event) {
				continue
			}
			if err := o.post(t, m); err != nil && o.ctx.Err() == nil {
				o.warn("notifiers: posting the %s message to %s failed: %s; the loop goes on", m.Event, t.Type, o.opts.Redact(err.Error()))
			}
		}
	}
}

func (o *Observer) warn(format string, args ...any) {
	usererr.Say(o.opts.Log, usererr.LevelWarning, format, args...)
}
