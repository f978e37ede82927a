//go:build linux

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// figure is one line of the report: how many problems a way of running
// solved, and what it cost in model time and tokens.
type figure struct {
	Name           string
	Solved, Of     int
	Seconds        float64
	Tokens         int
	Requests       int // model calls
	Runs, Declared int // runs counted; runs architect called a success
}

func (f figure) String() string {
	per := "–"
	if f.Solved > 0 {
		per = fmt.Sprintf("%.0f s", f.Seconds/float64(f.Solved))
	}
	pct := 0.0
	if f.Of > 0 {
		pct = 100 * float64(f.Solved) / float64(f.Of)
	}
	return fmt.Sprintf("| %s | %d/%d (%.1f%%) | %s | %.0f s | %d | %d | %d |", f.Name, f.Solved, f.Of, pct, per, f.Seconds, f.Tokens, f.Requests, f.Declared)
}

// figures computes the report's lines for one label's records, over the
// problems every mode finished (so the lines compare the same problems).
func figures(recs []record, attempts int) (tasks []string, out []figure) {
	rt := tabulate(recs)
	rt.tasks = rt.whole(attempts)
	var singles []string
	for a := 1; a <= attempts; a++ {
		singles = append(singles, fmt.Sprintf("single#%d", a))
	}
	add := func(name string, keys []string) {
		if f, ok := rt.figure(name, keys); ok {
			out = append(out, f)
		}
	}
	add("plain HumanEval prompt, greedy, no architect (checks the weights)", []string{"direct#1"})
	add("(a) one attempt: architect, 1 iteration", []string{"single#1"})
	add("(b) architect loop, up to 4 iterations", []string{"loop#1"})
	if attempts > 1 {
		add(fmt.Sprintf("(c) %d independent attempts, any passes the check", attempts), singles)
	}
	if attempts > 1 && rt.present[singles[0]] {
		out = append(out, rt.mean(attempts, singles))
	}
	if attempts > 1 {
		if f, ok := rt.firstPassing(fmt.Sprintf("(c) the same %d attempts one after another, stopping at the first that passes the check", attempts), singles); ok {
			out = append(out, f)
		}
	}
	add(rt.bestName("best", "(d) best-of-%s, without the losers' section"), []string{"best#1"})
	add(rt.bestName("hybrid", "(e) best-of-%s, with the losers' section in the next prompt"), []string{"hybrid#1"})
	return rt.tasks, out
}

// bestName is the line's name for best or hybrid, format's %s filled with
// the runs' candidates and rounds ("mixed" if the runs differ, which
// measure refuses to make).
func (rt recordTable) bestName(mode, format string) string {
	setting := ""
	for _, t := range rt.tasks {
		r, ok := rt.by[t][mode+"#1"]
		if !ok {
			continue
		}
		s := fmt.Sprintf("%d candidates per round, up to %d rounds", r.Candidates, r.Rounds)
		if setting != "" && s != setting {
			return fmt.Sprintf(format, "N (mixed settings)")
		}
		setting = s
	}
	return fmt.Sprintf(format, setting)
}

// recordTable is one label's records by task and by run (mode#attempt).
type recordTable struct {
	by      map[string]map[string]record // task → mode#attempt → record
	present map[string]bool              // mode#attempt seen for some task
	tasks   []string                     // the tasks compared, in HumanEval's order
}

func tabulate(recs []record) recordTable {
	rt := recordTable{by: map[string]map[string]record{}, present: map[string]bool{}}
	for _, r := range recs {
		k := fmt.Sprintf("%s#%d", r.Mode, r.Attempt)
		rt.present[k] = true
		if rt.by[r.Task] == nil {
			rt.by[r.Task] = map[string]record{}
		}
		rt.by[r.Task][k] = r
	}
	return rt
}

// whole lists, sorted, the tasks that have a record of every run measured
// for some task.
func (rt recordTable) whole(attempts int) []string {
	var tasks []string
	for t, m := range rt.by {
		whole := true
		for _, k := range modeKeys(attempts) {
			if _, ok := m[k]; rt.present[k] && !ok {
				whole = false
			}
		}
		if whole {
			tasks = append(tasks, t)
		}
	}
	slices.SortFunc(tasks, func(a, b string) int {
		if d := taskNumber(a) - taskNumber(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return tasks
}

// figure is the line for a way of running made of the runs keys: a task
// is solved when any of them solved it. False when one of the runs was
// not measured.
func (rt recordTable) figure(name string, keys []string) (figure, bool) {
	return rt.tally(name, keys, false)
}

// firstPassing is (c) as a user would run it: the attempts in their order,
// one after another, stopping at the first whose check passes. It solves
// what (c) solves and costs only the attempts made up to that one: the
// attempts are independent, so the first k of them are what k attempts
// would have been.
func (rt recordTable) firstPassing(name string, keys []string) (figure, bool) {
	return rt.tally(name, keys, true)
}

// tally adds up the runs keys of every task: all of them, or with
// untilSolved those up to the first that solved it.
func (rt recordTable) tally(name string, keys []string, untilSolved bool) (figure, bool) {
	if len(keys) == 0 {
		return figure{}, false
	}
	for _, k := range keys {
		if !rt.present[k] {
			return figure{}, false // not measured
		}
	}
	f := figure{Name: name, Of: len(rt.tasks)}
	for _, t := range rt.tasks {
		solved := false
		for _, k := range keys {
			r := rt.by[t][k]
			f.Seconds += r.Seconds
			f.Tokens += r.PromptTokens + r.CompletionTokens
			f.Requests += r.Requests
			f.Runs++
			if r.Success {
				f.Declared++
			}
			solved = solved || r.Solved
			if solved && untilSolved {
				break
			}
		}
		if solved {
			f.Solved++
		}
	}
	return f, true
}

// mean is the mean over the independent attempts (singles): a steadier
// estimate of one attempt.
func (rt recordTable) mean(attempts int, singles []string) figure {
	mean := figure{Name: fmt.Sprintf("(a) averaged over the %d attempts (solved attempts / attempts)", attempts)}
	for _, t := range rt.tasks {
		for _, k := range singles {
			r := rt.by[t][k]
			mean.Of++
			mean.Seconds += r.Seconds
			mean.Tokens += r.PromptTokens + r.CompletionTokens
			mean.Requests += r.Requests
			if r.Solved {
				mean.Solved++
			}
			if r.Success {
				mean.Declared++
			}
		}
	}
	return mean
}

func modeKeys(attempts int) []string {
	keys := []string{"direct#1", "loop#1", "best#1", "hybrid#1"}
	for a := 1; a <= attempts; a++ {
		keys = append(keys, fmt.Sprintf("single#%d", a))
	}
	return keys
}

// writeReport prints, per label, the figures as a Markdown table.
func writeReport(w io.Writer, recs []record, attempts int) {
	var labels []string
	for _, r := range recs {
		if !slices.Contains(labels, r.Label) {
			labels = append(labels, r.Label)
		}
	}
	for _, l := range labels {
		var mine []record
		for _, r := range recs {
			if r.Label == l {
				mine = append(mine, r)
			}
		}
		tasks, figs := figures(mine, attempts)
		fmt.Fprintf(w, "### %s (%d problems with every mode finished)\n\n", l, len(tasks))
		fmt.Fprintln(w, "| how | solved | model time per solved problem | model time | tokens (prompt + completion) | model calls | runs architect called a success |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, f := range figs {
			fmt.Fprintln(w, f)
		}
		fmt.Fprintf(w, "\nProblems: %s\n\n", strings.Join(tasks, ", "))
		writeOverlaps(w, mine, attempts)
	}
	if len(labels) > 1 {
		writeLoopPairs(w, recs, labels)
	}
}

// overlap is how two ways of running compare problem by problem: the
// problems each solved, on the same problems.
type overlap struct {
	A, B             string   // the ways' short names: (b), (c)...
	Both, Either, Of int      // solved by both, by either; problems compared
	OnlyA, OnlyB     []string // solved by one and not the other
}

// overlaps pairs the loop (b) with the attempts (c), and the hybrid (e)
// with (b), (c) and best-of-N without the losers' section (d), over the
// problems every mode finished; a pair one of whose ways was not measured
// is left out.
func overlaps(recs []record, attempts int) []overlap {
	rt := tabulate(recs)
	rt.tasks = rt.whole(attempts)
	var singles []string
	for a := 1; a <= attempts; a++ {
		singles = append(singles, fmt.Sprintf("single#%d", a))
	}
	ways := map[string][]string{"(b)": {"loop#1"}, "(d)": {"best#1"}, "(e)": {"hybrid#1"}}
	if attempts > 1 {
		ways["(c)"] = singles
	}
	solved := func(keys []string) (map[string]bool, bool) {
		if len(keys) == 0 {
			return nil, false
		}
		set := map[string]bool{}
		for _, k := range keys {
			if !rt.present[k] {
				return nil, false
			}
			for _, t := range rt.tasks {
				set[t] = set[t] || rt.by[t][k].Solved
			}
		}
		return set, true
	}
	var out []overlap
	for _, pair := range [][2]string{{"(b)", "(c)"}, {"(e)", "(b)"}, {"(e)", "(c)"}, {"(e)", "(d)"}} {
		a, okA := solved(ways[pair[0]])
		b, okB := solved(ways[pair[1]])
		if !okA || !okB {
			continue
		}
		o := overlap{A: pair[0], B: pair[1], Of: len(rt.tasks)}
		for _, t := range rt.tasks {
			switch {
			case a[t] && b[t]:
				o.Both++
			case a[t]:
				o.OnlyA = append(o.OnlyA, t)
			case b[t]:
				o.OnlyB = append(o.OnlyB, t)
			}
		}
		o.Either = o.Both + len(o.OnlyA) + len(o.OnlyB)
		out = append(out, o)
	}
	return out
}

// writeOverlaps prints the overlaps as a Markdown table, then the problems
// that only one way of each pair solved.
func writeOverlaps(w io.Writer, recs []record, attempts int) {
	ovs := overlaps(recs, attempts)
	if len(ovs) == 0 {
		return
	}
	fmt.Fprintln(w, "Problem by problem, on the same problems:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| pair | solved by both | only by the first | only by the second | by either | of |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, o := range ovs {
		fmt.Fprintf(w, "| %s and %s | %d | %d | %d | %d | %d |\n", o.A, o.B, o.Both, len(o.OnlyA), len(o.OnlyB), o.Either, o.Of)
	}
	fmt.Fprintln(w)
	for _, o := range ovs {
		fmt.Fprintf(w, "- only %s, not %s: %s; only %s, not %s: %s\n", o.A, o.B, listOrNone(o.OnlyA), o.B, o.A, listOrNone(o.OnlyB))
	}
	fmt.Fprintln(w)
}

func listOrNone(tasks []string) string {
	if len(tasks) == 0 {
		return "none"
	}
	return strings.Join(tasks, ", ")
}

// writeLoopPairs compares the loops of the labels problem by problem, on
// the problems every label ran the loop on: two builds of architect (two
// prompts) on the same problems with the same seeds.
func writeLoopPairs(w io.Writer, recs []record, labels []string) {
	loops := map[string]map[string]record{} // label → task → loop record
	for _, r := range recs {
		if r.Mode == "loop" && r.Attempt == 1 {
			if loops[r.Label] == nil {
				loops[r.Label] = map[string]record{}
			}
			loops[r.Label][r.Task] = r
		}
	}
	var tasks []string
	for t := range loops[labels[0]] {
		all := true
		for _, l := range labels[1:] {
			_, ok := loops[l][t]
			all = all && ok
		}
		if all {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 0 {
		return
	}
	slices.SortFunc(tasks, func(a, b string) int { return taskNumber(a) - taskNumber(b) })
	fmt.Fprintf(w, "### The loop, label by label, on the same %d problems\n\n", len(tasks))
	fmt.Fprintln(w, "| label | solved | architect called a success | iterations | model time | tokens (prompt + completion) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, l := range labels {
		var solved, declared, iters, tokens int
		var secs float64
		for _, t := range tasks {
			r := loops[l][t]
			solved += b2i(r.Solved)
			declared += b2i(r.Success)
			iters += r.Iterations
			tokens += r.PromptTokens + r.CompletionTokens
			secs += r.Seconds
		}
		fmt.Fprintf(w, "| %s | %d/%d | %d | %d | %.0f s | %d |\n", l, solved, len(tasks), declared, iters, secs, tokens)
	}
	fmt.Fprintf(w, "\nProblems: %s\n\n", strings.Join(tasks, ", "))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func runReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	out := fs.String("out", "", "the measurement's folder, or several, comma-separated (their labels compared)")
	attempts := fs.Int("attempts", 0, "independent attempts per problem (0: as many as the results hold)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var recs []record
	for _, dir := range strings.Split(*out, ",") {
		r, err := readRecords(filepath.Join(dir, "results.jsonl"))
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	if *attempts == 0 {
		for _, r := range recs {
			if r.Mode == "single" {
				*attempts = max(*attempts, r.Attempt)
			}
		}
	}
	writeReport(os.Stdout, recs, *attempts)
	return nil
}

// taskNumber is N of "HumanEval/N", for sorting.
func taskNumber(id string) int {
	n := 0
	for _, c := range id[strings.LastIndexByte(id, '/')+1:] {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}
