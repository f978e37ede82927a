// Package hooks acts on the loop's events for people who are not watching:
// it runs the user's on_iteration and on_finish shell commands with
// ARCHITECT_* variables describing what happened, pushes the loop's branch
// to its remote after iterations that commit (--push), and tells the user
// the loop ended (--notify). It is one observer among those the command
// line gives loop.Deps.Events.
//
// Nothing here can end the loop: a failing hook, push or notification is
// reported as a warning and the loop goes on.
//
// The user's hooks run confined by the run's sandbox, by the checks' rules
// (Confine); the push and the notification are architect's own actions
// and run unconfined.
package hooks

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// DefaultTimeout bounds each hook, push and notification.
const DefaultTimeout = 60 * time.Second

// ReportFile is where `architect report` writes the run's report, relative
// to the workspace; on_finish hooks get its path as ARCHITECT_REPORT_PATH.
const ReportFile = ".architect/report.html"

// Config says what to do on which event.
type Config struct {
	OnIteration string // shell command run after each iteration
	OnFinish    string // shell command run when the loop ends
	Notify      bool   // notify-send, or the terminal bell, when the loop ends
	Push        bool   // push the loop's branch after iterations that commit

	Timeout time.Duration // per command; 0 means DefaultTimeout
	// Shell names what runs the hooks (proc.ResolveShell), as for the
	// checks: "" is the default, with pipefail.
	Shell string
	// Log receives "architect: …" lines: warnings and what was pushed.
	Log io.Writer
	// Bell receives the terminal bell when notify-send is missing.
	Bell io.Writer
	// LookPath finds notify-send; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Redact masks secrets in what a hook printed, where it enters
	// architect (the warning quoting its last line); nil masks nothing.
	Redact func(string) string
	// Env is the hooks' environment; nil means the process's.
	Env []string
}

// Active reports whether c asks for anything at all.
func (c Config) Active() bool {
	return c.OnIteration != "" || c.OnFinish != "" || c.Notify || c.Push
}

// Observer acts on one run's events. Its methods are called one at a time
// (the loop's emitter serialises them), from the loop's goroutine: the loop
// waits for a hook or a push to finish, up to Timeout.
type Observer struct {
	ctx context.Context
	cfg Config

	workspace, branch string
	maxIterations     int
	pusher            *pusher

	mu     sync.Mutex
	wrap   Wrapper                      // confines the user's hooks; nil runs them unconfined
	denied func(output string) []string // names what the sandbox refused, read in a hook's output
}

// Wrapper is the shape of proc.Options.Wrap (and of sandbox.Wrapper).
type Wrapper = func(name string, args []string, arg0 string) (string, []string, string, error)

// Confine makes the on_iteration and on_finish hooks run from now on
// through wrap: the run's sandbox, with the rules of its checks (the loop
// hands it over through loop.Deps.Confine once its sandbox is set up,
// before its first event). nil runs them unconfined. denied reads a
// failed hook's output for what the sandbox refused ("sandbox denied
// write to PATH"), said with its failure; nil says nothing more. It is
// safe to call while events are observed.
func (o *Observer) Confine(wrap Wrapper, denied func(output string) []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.wrap, o.denied = wrap, denied
}

func (o *Observer) wrapper() (Wrapper, func(string) []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.wrap, o.denied
}

// New returns an observer whose iteration hooks and pushes end with ctx;
// the actions taken when the loop finishes outlive ctx (an interrupted run
// still reports), bounded by the timeout.
func New(ctx context.Context, cfg Config) *Observer {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Bell == nil {
		cfg.Bell = io.Discard
	}
	if cfg.Redact == nil {
		cfg.Redact = func(s string) string { return s }
	}
	return &Observer{ctx: ctx, cfg: cfg}
}

// Observe handles one event.
func (o *Observer) Observe(ev runlog.Event) {
	switch ev.Type {
	case runlog.EventLoopStarted:
		o.workspace, o.maxIterations = ev.Workspace, ev.MaxIterations
		o.branch = ev.Branch
		if o.cfg.Push {
			o.pusher = newPusher(o.ctx, o.cfg, ev.Workspace, ev.Branch)
		}
		if o.branch == "" && o.pusher != nil {
			o.branch = o.pusher.branch
		}
	case runlog.EventIterationFinished:
		if o.pusher != nil {
			o.pusher.push(o.ctx, false)
		}
		if o.cfg.OnIteration != "" {
			o.run(o.ctx, "on_iteration", o.cfg.OnIteration, o.iterationEnv(ev))
		}
	case runlog.EventLoopFinished:
		ctx := context.WithoutCancel(o.ctx)
		if o.pusher != nil {
			o.pusher.push(ctx, true) // a push that failed earlier gets a last try
		}
		if o.cfg.OnFinish != "" {
			o.run(ctx, "on_finish", o.cfg.OnFinish, o.finishEnv(ev))
		}
		if o.cfg.Notify {
			o.notify(ctx, ev)
		}
	}
}

func (o *Observer) iterationEnv(ev runlog.Event) []string {
	return []string{
		"ARCHITECT_EVENT=" + ev.Type,
		"ARCHITECT_ITERATION=" + strconv.Itoa(ev.Iteration),
		"ARCHITECT_MAX_ITERATIONS=" + strconv.Itoa(o.maxIterations),
		"ARCHITECT_ALL_CHECKS_PASSED=" + boolText(ev.AllChecksPassed),
		"ARCHITECT_COMPLETION_SIGNAL=" + ev.CompletionSignal,
		"ARCHITECT_COST=" + number(ev.Cost),
		"ARCHITECT_DURATION=" + number(ev.Duration),
		"ARCHITECT_COMMIT=" + ev.Commit,
		"ARCHITECT_INTERRUPTED=" + ev.Interrupted,
		"ARCHITECT_BRANCH=" + o.branch,
		"ARCHITECT_WORKSPACE=" + o.workspace,
	}
}

func (o *Observer) finishEnv(ev runlog.Event) []string {
	outcome := "failure"
	if ev.Success != nil && *ev.Success {
		outcome = "success"
	}
	iterations := ev.Iteration
	if ev.TotalIterations != nil {
		iterations = *ev.TotalIterations
	}
	return []string{
		"ARCHITECT_EVENT=" + ev.Type,
		"ARCHITECT_OUTCOME=" + outcome,
		"ARCHITECT_STOP_REASON=" + ev.StopReason,
		"ARCHITECT_STOP_DETAIL=" + ev.StopDetail,
		"ARCHITECT_ITERATIONS=" + strconv.Itoa(iterations),
		"ARCHITECT_MAX_ITERATIONS=" + strconv.Itoa(o.maxIterations),
		"ARCHITECT_TOTAL_COST=" + number(ev.TotalCost),
		"ARCHITECT_KNOWN_COST=" + number(ev.KnownCost),
		"ARCHITECT_NO_CHECKS=" + strconv.FormatBool(ev.NoChecks),
		"ARCHITECT_DURATION=" + number(ev.Duration),
		"ARCHITECT_BRANCH=" + o.branch,
		"ARCHITECT_WORKSPACE=" + o.workspace,
		"ARCHITECT_REPORT_PATH=" + filepath.Join(o.workspace, ReportFile),
	}
}

// env is the hooks' environment without their own variables: a copy,
// since each hook appends its own.
func (o *Observer) env() []string {
	if o.cfg.Env == nil {
		return os.Environ()
	}
	return slices.Clone(o.cfg.Env)
}

// run runs one hook in the workspace, confined as Confine said; a failure
// becomes a warning.
func (o *Observer) run(ctx context.Context, name, script string, vars []string) {
	sh, err := proc.ResolveShell(ctx, o.cfg.Shell)
	if err != nil {
		o.warn("%s hook not run: %v", name, err)
		return
	}
	out := proc.NewTail(2 << 10)
	wrap, denied := o.wrapper()
	res := sh.Run(ctx, script, proc.Options{
		Dir:     o.workspace,
		Env:     append(o.env(), vars...),
		Stdout:  out,
		Stderr:  out,
		Timeout: o.cfg.Timeout,
		Wrap:    wrap,
	})
	var why string
	switch {
	case res.StartErr != nil:
		why = res.StartErr.Error()
	case res.TimedOut:
		why = "timed out after " + o.cfg.Timeout.String()
	case res.Canceled:
		why = "stopped: the loop was interrupted"
	case res.ExitCode != 0:
		why = "exit status " + strconv.Itoa(res.ExitCode)
	default:
		return
	}
	if last := o.cfg.Redact(lastLine(out.Bytes())); last != "" {
		why += ": " + last
	}
	if denied != nil {
		for _, d := range denied(string(out.Bytes())) {
			o.warn("%s hook: %s", name, o.cfg.Redact(d))
		}
	}
	if name == "on_finish" {
		o.warn("%s hook failed (%s)", name, why) // the loop has ended
		return
	}
	o.warn("%s hook failed (%s); the loop goes on", name, why)
}

func (o *Observer) warn(format string, args ...any) {
	usererr.Say(o.cfg.Log, usererr.LevelWarning, format, args...)
}

func boolText(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

// number formats f, or "" when it is unknown.
func number(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(proc.Clean(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
