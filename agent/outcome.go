package agent

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/architect-dev/architect/proc"
)

// ExitWaiting is the exit status with which an agent says it is waiting for
// something outside the loop: the loop stops without restarting it.
const ExitWaiting = 42

// baseEnv returns env, or the process environment when env is nil.
func baseEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	return append([]string(nil), env...)
}

// fromProc fills the process part of an Outcome and classifies the
// failures every adapter shares: could not start, timeouts, cancellation.
func fromProc(r proc.Result) Outcome {
	o := Outcome{
		ExitCode: r.ExitCode,
		TimedOut: r.TimedOut,
		Inactive: r.Inactive,
		Canceled: r.Canceled,
		Duration: r.Duration,
	}
	switch {
	case r.StartErr != nil:
		o.ErrKind = ErrFatal
		o.Err = r.StartErr.Error()
		switch {
		case errors.Is(r.StartErr, exec.ErrNotFound), errors.Is(r.StartErr, os.ErrNotExist):
			o.Hint = "install the agent's CLI or point --agent-bin at it"
		case errors.Is(r.StartErr, os.ErrPermission):
			o.Hint = "make the agent's executable runnable (chmod +x) or point --agent-bin at another"
		}
	case r.TimedOut:
		o.ErrKind = ErrTransient
		// No figure here: r.Duration ends when the leader exits, which may
		// be long before the rest of its group is gone; the loop measures
		// the agent's real time.
		o.Err = "agent timed out (stopped at --iteration-timeout)"
	case r.Inactive:
		o.ErrKind = ErrTransient
		o.Err = "agent produced no output for the inactivity timeout and was stopped"
	case r.Canceled:
		o.Err = "agent stopped: the loop was cancelled or ran out of time"
	}
	return o
}

func joinErr(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// lastLines returns at most n trailing lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// options is how every adapter runs its CLI: in the workspace, with env,
// the prompt on stdin, and the request's timeouts.
func (req Request) options(env []string, stdout, stderr io.Writer) proc.Options {
	stdout, stderr = teeTo(stdout, req.CopyStdout), teeTo(stderr, req.CopyStderr)
	return proc.Options{
		Dir:               req.Dir,
		Env:               env,
		Stdin:             strings.NewReader(req.Prompt),
		Stdout:            stdout,
		Stderr:            stderr,
		Timeout:           req.Timeout,
		InactivityTimeout: req.InactivityTimeout,
		Grace:             req.Grace,
		Wrap:              req.Wrap,
		Attr:              req.WrapAttr,
	}
}

// teeTo is w, also writing to copyTo when it is set.
func teeTo(w, copyTo io.Writer) io.Writer {
	switch {
	case copyTo == nil:
		return w
	case w == nil:
		return copyTo
	}
	return io.MultiWriter(w, copyTo)
}

// add counts u's tokens in too.
func (u *Usage) add(v Usage) {
	u.Input += v.Input
	u.CachedInput += v.CachedInput
	u.Output += v.Output
}

// notes keeps the first lines of a CLI's stdout that are not JSON: Amp and
// cursor-agent print their login prompts and some errors as plain text.
type notes []string

// maxNotes bounds the lines kept, each cut to 300 bytes.
const maxNotes = 20

// plain reports whether the trimmed line b is not a JSON object (an empty
// line included), keeping it if there is room.
func (n *notes) plain(b []byte) bool {
	if len(b) > 0 && b[0] == '{' {
		return false
	}
	if len(b) > 0 && len(*n) < maxNotes {
		*n = append(*n, capText(proc.Clean(b), 300))
	}
	return true
}

func (n notes) String() string { return strings.Join(n, "\n") }
