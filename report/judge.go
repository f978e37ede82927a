package report

import (
	"fmt"

	"github.com/architect-dev/architect/runlog"
)

// judgeFields is what an iteration's details say about the files that
// define a check (--judge) its agent changed: undone, or kept.
func judgeFields(it runlog.Iteration) []field {
	var out []field
	for _, c := range it.JudgeChanged {
		v := c.Text() + " (undone; the iteration failed)"
		if c.Kept {
			v = c.Text() + " (kept: --judge warn)"
		}
		out = append(out, field{"Judge changed", v, true})
	}
	return out
}

// runJudgeFields is what the run's overview says about them: each file
// once, with the iterations that changed it.
func runJudgeFields(its []runlog.Iteration) []field {
	var order []string
	by := map[string][]int{}
	last := map[string]runlog.JudgeChange{}
	for _, it := range its {
		for _, c := range it.JudgeChanged {
			if _, ok := by[c.File]; !ok {
				order = append(order, c.File)
			}
			by[c.File] = append(by[c.File], it.Iteration)
			last[c.File] = c
		}
	}
	var out []field
	for _, f := range order {
		c := last[f]
		what := "undone each time"
		if c.Kept {
			what = "kept (--judge warn): the checks that passed are not the ones the run started with"
		}
		out = append(out, field{"Judge changed", fmt.Sprintf("%s, in iteration%s %s; %s", c.Text(), plural(len(by[f])), joinInts(by[f]), what), true})
	}
	return out
}

// judgeFailed reports whether the iteration failed for changing how a
// check is judged (a change that was undone).
func judgeFailed(it runlog.Iteration) bool {
	for _, c := range it.JudgeChanged {
		if !c.Kept {
			return true
		}
	}
	return false
}

func joinInts(ns []int) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(n)
	}
	return s
}
