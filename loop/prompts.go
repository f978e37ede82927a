package loop

import (
	"context"
	"fmt"
	"os"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
)

// buildPrompt builds iteration x's prompt from values: the task (or the
// specification, read again each time), what the last iterations left
// (their failing checks, the agent's error, the notes about protected
// files and interruptions), the changes so far, the person's notes and
// the progress file. last is what the iterations so far left. When it
// takes the changes so far itself (a session's first prompt), x keeps them.
func (r *runner) buildPrompt(ctx context.Context, x *iteration, last carried) (string, error) {
	i := x.n
	in := prompt.Input{
		PersonNotes:   x.rec.Notes,
		Task:          r.cfg.Task,
		Iteration:     i,
		MaxIterations: r.cfg.MaxIterations,
		Checks:        r.shown.Checks,
		CompletionTag: r.cfg.CompletionTag,
		ExecError:     last.execErr,
		Candidates:    last.lessons,
		Notes:         append(modeNotes(r.cfg.Mode), judgeGuardNote(r.judge), last.protectNote, last.judgeNote, last.interruptNote, r.testsNote(), last.finalNote),
	}
	in.Questions = r.questionsOn()
	x.rec.Answer = r.answerFor(&in)
	if r.cfg.Spec != "" {
		spec, err := os.ReadFile(r.cfg.Spec)
		if err != nil {
			return "", fmt.Errorf("cannot read the specification file %s: %w", r.cfg.Spec, err)
		}
		in.Task, in.FromSpec = proc.Clean(spec), true
	}
	if d := last.diff; d != nil {
		in.Diff, in.DiffTruncated = promptDiff(*d)
	} else if r.ws.repo != nil {
		d, err := r.ws.diff(ctx)
		if err != nil {
			if ctx.Err() == nil {
				r.warn("could not compute the changes so far: " + r.cleanText(err.Error()))
			}
		} else {
			in.Diff, in.DiffTruncated = promptDiff(d)
			x.patch, x.patchKnown = d.Text, true
		}
	}
	prevByName := map[string]runlog.CheckResult{}
	for _, c := range last.prevPrev {
		prevByName[c.Name] = c
	}
	for _, c := range last.prev {
		if c.Passed {
			continue
		}
		f := prompt.CheckFailure{Command: c.Name, Status: c.Status(), Output: c.Output}
		if p, ok := prevByName[c.Name]; ok && !p.Passed {
			out := p.Output
			f.PrevOutput = &out
		}
		in.Failed = append(in.Failed, f)
	}
	if len(r.records) > 0 { // a new run's progress file starts empty
		if b, err := os.ReadFile(r.ws.state(runlog.ProgressFile)); err == nil {
			in.Progress = string(b)
		}
	}
	return prompt.Build(in), nil
}

// modeNotes are the instructions plan and build modes add to the prompt.
func modeNotes(mode string) []string {
	switch mode {
	case config.ModePlan:
		return []string{"Plan mode: do not implement anything. Compare the specification with the code, and write or update IMPLEMENTATION_PLAN.md: a prioritised list of the tasks left, each small enough for one iteration."}
	case config.ModeBuild:
		return []string{"Build mode: pick the most important unfinished task from IMPLEMENTATION_PLAN.md, implement it with its tests, and mark it done there. One task per iteration: architect commits after each iteration."}
	}
	return nil
}

// after is what the iterations leave to the next prompt once rec is
// recorded: its check results (when they ran), its error and its notes.
// The notes about protected files and the judge are the attempt's (run.go
// sets them as the agent ends), the diff the snapshot's.
func (c carried) after(rec record) carried {
	if rec.ChecksRun {
		c.prevPrev, c.prev = c.prev, lastResults(rec.Iteration)
	}
	c.finalNote = finalNote(rec.Iteration)
	c.execErr = ""
	if rec.Error != nil && rec.Interrupted == "" {
		c.execErr = *rec.Error
	}
	c.interruptNote = interruptNote(rec.Iteration)
	return c
}
