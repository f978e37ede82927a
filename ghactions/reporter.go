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
// failing checks of the last and the best iterations. Safe for concurrent use.
type Reporter struct {
	W io.Writer // where the commands go (the log: stderr)
	// Formats gives, by check command, the formats that read its output
	// (the errorformat configuration key); a command not in it has the
	// formats Detect finds.
	Formats map[string][]string
	// Prefix starts every annotation's title (a batch task's "[ID] ").
	Prefix string
	// Budget counts the step's annotations; nil: the reporter's own.
	Budget *Budget

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

// Finish closes an open group, writes the judge's annotations and, unless
// the run succeeded, annotates its failing checks (Annotate); then says
// what went beyond GitHub's limit (Budget.Close).
func (r *Reporter) Finish(res *runlog.Result) {
	r.mu.Lock()
	r.end()
	if res != nil {
		judgeAnnotations(r.W, res)
	}
	r.mu.Unlock()
	r.Annotate(res)
	r.budget().Close(r.W)
}

// Annotate writes the annotations of a run that did not succeed: for each
// failing check of its last iteration an ::error:: per location its output
// names (file relative to the workspace), or one ::error:: with the end of
// its output when it names none; and, when an earlier iteration passed
// more checks (the best), a ::warning:: per location of that iteration's
// failing checks. Which locations a check's output names is read with the
// formats Formats gives for its command, else the ones Detect finds in it.
// Every title starts with Prefix. Annotations beyond GitHub's limit are
// written as plain lines.
func (r *Reporter) Annotate(res *runlog.Result) {
	if res == nil || res.Success || len(res.Iterations) == 0 {
		return
	}
	last, best := LastAndBest(res.Iterations)
	if last == nil {
		return
	}
	r.annotateIteration(res, last, "error", r.Prefix+"check failed: ")
	if best != nil && best != last {
		r.annotateIteration(res, best, "warning", fmt.Sprintf("%scheck failed in iteration %d (the best, %s passed): ", r.Prefix, best.Iteration, passedOf(*best)))
	}
}

func (r *Reporter) annotateIteration(res *runlog.Result, it *runlog.Iteration, kind, title string) {
	for _, c := range it.CheckResults {
		if c.Passed {
			continue
		}
		anns := Resolve(res.Workspace, Parse(r.FormatsFor(c.Name), c.Output))
		if len(anns) == 0 {
			anns = []Annotation{{Message: lastLines(c.Output, 20)}}
		}
		for _, a := range anns {
			r.budget().emit(r.W, kind, title+c.Name, a)
		}
	}
}

// FormatsFor returns the formats that read the output of the check
// command: the ones Formats sets for it, else the ones Detect finds.
func (r *Reporter) FormatsFor(command string) []string {
	if f, ok := r.Formats[command]; ok && len(f) > 0 {
		return f
	}
	return Detect(command)
}

func (r *Reporter) budget() *Budget {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Budget == nil {
		r.Budget = &Budget{}
	}
	return r.Budget
}

// LastAndBest returns the last iteration whose checks ran and the one
// that passed the most checks (the later one on a tie); nil when no
// iteration ran its checks.
func LastAndBest(its []runlog.Iteration) (last, best *runlog.Iteration) {
	bestPassed := -1
	for i := range its {
		it := &its[i]
		if len(it.CheckResults) == 0 {
			continue
		}
		last = it
		if p := passed(*it); p >= bestPassed {
			best, bestPassed = it, p
		}
	}
	if best != nil && last != nil && passed(*best) == passed(*last) {
		best = last
	}
	return last, best
}

func passed(it runlog.Iteration) int {
	n := 0
	for _, c := range it.CheckResults {
		if c.Passed {
			n++
		}
	}
	return n
}

func passedOf(it runlog.Iteration) string {
	return fmt.Sprintf("%d/%d", passed(it), len(it.CheckResults))
}

// MaxPerStep is how many annotations of each type (error, warning)
// GitHub shows for one step; it drops the rest.
const MaxPerStep = 10

// Budget counts a step's annotations by type, so that at most MaxPerStep
// of each are written: the reporters of one step (a batch's tasks) share
// one. Past MaxPerStep-1 of a type, the rest go into the log as plain
// lines, and Close writes the last one, which says how many there were.
type Budget struct {
	mu      sync.Mutex
	written map[string]int
	over    map[string]int
}

func (b *Budget) emit(w io.Writer, kind, title string, a Annotation) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written == nil {
		b.written, b.over = map[string]int{}, map[string]int{}
	}
	if b.written[kind] < MaxPerStep-1 {
		b.written[kind]++
		fmt.Fprintln(w, a.Command(kind, title))
		return
	}
	b.over[kind]++
	loc := ""
	if a.File != "" {
		loc = fmt.Sprintf("%s:%d: ", a.File, a.Line)
	}
	fmt.Fprintf(w, "architect: not annotated (%s, past GitHub's %d per step): %s: %s%s\n", kind, MaxPerStep, Inert(title), Inert(loc), Inert(a.Message))
}

// Close writes, for each type that went past the limit, one last
// annotation saying how many were not annotated, and resets the count of
// those.
func (b *Budget) Close(w io.Writer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, kind := range []string{"error", "warning"} {
		if n := b.over[kind]; n > 0 {
			fmt.Fprintln(w, Command(kind, map[string]string{"title": "more failures"}, fmt.Sprintf("%d more %s%s not annotated: GitHub shows %d per step; they are in the log, as lines starting \"architect: not annotated\"", n, kind, plural(n), MaxPerStep)))
			b.written[kind]++
			b.over[kind] = 0
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
