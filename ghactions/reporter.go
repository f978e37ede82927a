package ghactions

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/architect-dev/architect/runlog"
)

// Reporter turns the loop's events into workflow commands: each
// iteration's log lines go in a ::group::, and Finish annotates the
// failing checks of the last iteration. Safe for concurrent use.
type Reporter struct {
	W io.Writer // where the commands go (the log: stderr)

	mu   sync.Mutex
	open bool
}

// Event is a loop.Deps.Events observer.
func (r *Reporter) Event(ev runlog.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Type {
	case runlog.EventIterationStarted:
		r.end()
		fmt.Fprintln(r.W, Command("group", nil, fmt.Sprintf("iteration %d/%d", ev.Iteration, ev.MaxIterations)))
		r.open = true
	case runlog.EventIterationFinished, runlog.EventLoopFinished:
		r.end()
	}
}

func (r *Reporter) end() {
	if r.open {
		fmt.Fprintln(r.W, "::endgroup::")
		r.open = false
	}
}

// Finish closes an open group and, unless the run succeeded, writes an
// ::error:: annotation for every file:line location named in the output
// of the last iteration's failing checks.
func (r *Reporter) Finish(res *runlog.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.end()
	if res != nil {
		judgeAnnotations(r.W, res)
	}
	if res == nil || res.Success || len(res.Iterations) == 0 {
		return
	}
	last := res.Iterations[len(res.Iterations)-1]
	for _, c := range last.CheckResults {
		if c.Passed {
			continue
		}
		title := "check failed: " + c.Name
		anns := Resolve(res.Workspace, Parse(c.Output))
		if len(anns) == 0 {
			fmt.Fprintln(r.W, Command("error", map[string]string{"title": title}, lastLines(c.Output, 20)))
			continue
		}
		for _, a := range anns {
			fmt.Fprintln(r.W, a.ErrorCommand(title))
		}
	}
}

// lastLines is the end of s, at most n lines.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := strings.Join(lines, "\n")
	if out == "" {
		return "the check failed without output"
	}
	return out
}
