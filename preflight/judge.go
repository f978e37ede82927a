package preflight

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
)

// judgeItems says, for each check, which files define it (the judge:
// checks.FindJudge) and what happens when the agent changes one (--judge).
// The files are looked for in the workspace the user gave (a worktree
// starts from its HEAD).
func judgeItems(cfg config.Config, judges []checks.Judge) []Item {
	mode := cfg.Judge
	if mode == "" {
		mode = config.JudgeProtect
	}
	var items []Item
	for _, j := range judges {
		it := Item{Check: "judge of `" + j.Check + "`", Status: OK}
		var inside, outside []string
		for _, f := range j.Present() {
			if f.Outside {
				outside = append(outside, f.Path)
				continue
			}
			why := f.Why
			if len(f.Parts) > 0 {
				why += "; only " + strings.Join(f.Parts, ", ")
			}
			inside = append(inside, f.Path+" ("+why+")")
		}
		switch {
		case len(inside) == 0 && len(outside) == 0:
			it.Detail = "no file found that defines it beyond its command"
		case len(inside) == 0:
			it.Detail = "no file in the workspace defines it"
		default:
			it.Detail = strings.Join(inside, ", ")
		}
		absent := 0
		for _, f := range j.Files {
			if !f.Exists && !f.Outside && f.Why != "the script it runs" {
				absent++
			}
		}
		if absent > 0 && mode != config.JudgeOff {
			it.Detail += fmt.Sprintf("; %d absent configuration file%s guarded too (creating one would change the verdict)", absent, plural(absent))
		}
		switch mode {
		case config.JudgeProtect:
			it.Detail += "; an agent's change is undone and fails the iteration (--judge protect)"
		case config.JudgeWarn:
			it.Detail += "; an agent's change is kept and reported (--judge warn)"
		case config.JudgeOff:
			it.Detail += "; not guarded (--judge off)"
		}
		var missing []string
		for _, f := range j.Files {
			if !f.Exists && !f.Outside && f.Why == "the script it runs" {
				missing = append(missing, f.Path)
			}
		}
		if len(missing) > 0 && mode == config.JudgeProtect {
			it.Status = Warn
			it.Detail += "; " + strings.Join(missing, ", ") + " does not exist, and an agent that creates it is undone"
			it.Hint = "create the check's script before the run, or let the agent write it with --judge warn"
		}
		if len(outside) > 0 {
			it.Status = Warn
			it.Detail += "; outside the workspace, not guarded: " + strings.Join(outside, ", ")
			it.Hint = "the agent works in the workspace, but can still reach files outside it: keep the check's script inside the repository to have it guarded"
		}
		items = append(items, it)
	}
	return items
}
