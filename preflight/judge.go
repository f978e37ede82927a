package preflight

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/config"
)

// judgeItems says, for each check, which files define it (the judge:
// checks.FindJudges) and what happens when the agent changes one (--judge).
// The files are looked for in the workspace the user gave (a worktree
// starts from its HEAD).
func judgeItems(cfg config.Config, judges []checks.Judge) []Item {
	mode := cfg.Judge
	if mode == "" {
		mode = config.JudgeProtect
	}
	var items []Item
	for _, j := range judges {
		items = append(items, judgeItem(mode, j))
	}
	return items
}

// judgeModeDetail says what happens to an agent's change of a judge's
// file under each --judge mode.
var judgeModeDetail = map[string]string{
	config.JudgeProtect: "; an agent's change is undone and fails the iteration (--judge protect)",
	config.JudgeWarn:    "; an agent's change is kept and reported (--judge warn)",
	config.JudgeOff:     "; not guarded (--judge off)",
}

// judgeItem is the line for one check's judge under mode: the files that
// define it, the absent ones guarded too, what a change does, and a
// warning for a script that does not exist yet or for files outside the
// workspace.
func judgeItem(mode string, j checks.Judge) Item {
	it := Item{Check: "judge of `" + j.Check + "`", Status: OK}
	inside, outside := judgeFiles(j)
	switch {
	case len(inside) == 0 && len(outside) == 0:
		it.Detail = "no file found that defines it beyond its command"
	case len(inside) == 0:
		it.Detail = "no file in the workspace defines it"
	default:
		it.Detail = strings.Join(inside, ", ")
	}
	if absent := len(absentFiles(j, false)); absent > 0 && mode != config.JudgeOff {
		it.Detail += fmt.Sprintf("; %d absent configuration file%s guarded too (creating one would change the verdict)", absent, plural(absent))
	}
	it.Detail += judgeModeDetail[mode]
	if missing := absentFiles(j, true); len(missing) > 0 && mode == config.JudgeProtect {
		it.Status = Warn
		it.Detail += "; " + strings.Join(missing, ", ") + " does not exist, and an agent that creates it is undone"
		it.Hint = "create the check's script before the run, or let the agent write it with --judge warn"
	}
	if len(outside) > 0 {
		it.Status = Warn
		it.Detail += "; outside the workspace, not guarded: " + strings.Join(outside, ", ")
		it.Hint = "the agent works in the workspace, but can still reach files outside it: keep the check's script inside the repository to have it guarded"
	}
	return it
}

// judgeFiles lists the judge's present files: those in the workspace,
// each with why it counts (and the parts compared, if not all of it), and
// those outside it.
func judgeFiles(j checks.Judge) (inside, outside []string) {
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
	return inside, outside
}

// absentFiles lists the judge's files in the workspace that do not
// exist: the check's script (script true) or its configuration files.
func absentFiles(j checks.Judge, script bool) []string {
	var out []string
	for _, f := range j.Files {
		if !f.Exists && !f.Outside && (f.Why == "the script it runs") == script {
			out = append(out, f.Path)
		}
	}
	return out
}
