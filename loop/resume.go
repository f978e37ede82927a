package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// Resume continues the run whose state is in workspace: a stopped, crashed
// or waiting run goes on with the same configuration (adjusted by
// override, for the flags the user gave), iteration count, cost and
// progress file. An iteration that a killed run was in the middle of is
// recorded first, as interrupted, with what its agent had spent.
func Resume(ctx context.Context, workspace string, override func(*config.Config), deps Deps) (*runlog.Result, error) {
	st, err := runlog.ReadState(workspace)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &usererr.Error{Msg: "no run to resume in " + workspace, Hint: "start one with `architect loop`, or pass the workspace with -C DIR"}
	}
	if err != nil {
		return nil, err
	}
	if !st.Resumable() {
		return nil, &usererr.Error{Msg: "the run in " + workspace + " already succeeded; there is nothing to resume", Hint: "start a new run with `architect loop`"}
	}
	var saved config.Config
	if err := st.DecodeConfig(&saved); err != nil {
		return nil, runlog.Damaged(runlog.Path(workspace, runlog.StateFile), err)
	}
	cfg := saved
	if override != nil {
		override(&cfg)
	}
	if err := needsAgain(st.Redacted, saved, cfg); err != nil {
		return nil, err
	}
	r := newRunner(cfg, deps)
	if r.slots, err = newSlots(cfg, r.deps); err != nil {
		return nil, err
	}
	if r.rev, err = newReviewer(cfg, r.deps); err != nil {
		return nil, err
	}
	if r.planners, err = newPlanners(cfg, r.deps); err != nil {
		return nil, err
	}
	runCtx, cancel := r.deadline(ctx, st.Elapsed)
	defer cancel()
	gctx, gcancel := gitContext(ctx, runCtx) // a run out of time still opens, to say so
	defer gcancel()
	ws, err := reopenWorkspace(gctx, st, saved.Mode)
	if err != nil {
		return nil, err
	}
	release, err := r.attach(ws)
	if err != nil {
		return nil, err
	}
	defer release()
	recs, err := runlog.ReadRecords(ws.state(runlog.RecordsFile))
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		r.records = append(r.records, record{Record: rec})
	}
	for _, f := range []string{runlog.WaitFile, runlog.ControlFile} {
		if os.Remove(ws.state(f)) == nil && f == runlog.WaitFile {
			r.logf("removed %s: the wait is over", ws.state(runlog.WaitFile))
		}
	}
	st.MaxIterations = cfg.MaxIterations
	st.Config, st.Redacted = r.shownJSON(), r.masked
	reopenQuestion(st)
	st.StopReason, st.StopDetail, st.WaitUntil, st.PausedFor = "", "", "", ""
	r.resumed = true
	r.restoreSlots(st.Agents, st.Agent)
	r.restoreNotes()
	if err := r.recordKilled(gctx); err != nil {
		return nil, err
	}
	r.restore()
	r.startJudge(true)
	r.resumeTests()
	r.logf("resuming after iteration %d of %d (%d recorded)", len(r.records), cfg.MaxIterations, len(r.records))
	if n := len(r.records); n > 0 && r.records[n-1].Interrupted != "" {
		r.logf("iteration %d was interrupted (%s) before its checks ran: its changes are in the workspace, and the next iteration is told", n, interruptText(r.cfg, r.records[n-1].Interrupted))
	}
	return r.session(ctx, runCtx, st)
}

// needsAgain refuses to resume a run whose saved configuration lost a
// secret in a value that runs (a check command, the agent command, a hook)
// unless that value was given again.
func needsAgain(redacted []string, saved, cfg config.Config) error {
	for _, key := range redacted {
		if !slices.Contains(resumeNeeds, key) {
			continue
		}
		was, now := configValue(saved, key), configValue(cfg, key)
		if was == now {
			flag := "--" + strings.ReplaceAll(key, "_", "-")
			switch key {
			case "checks":
				flag = "--check"
			case "fallback":
				flag = "--fallback"
			case "roles":
				return &usererr.Error{
					Msg:  "the run's roles: held a secret, which architect did not save (state.json has it masked)",
					Hint: "give them again: architect loop --resume -c ralph.yaml (the file with the roles: entries)",
				}
			}
			return &usererr.Error{
				Msg:  fmt.Sprintf("the run's %s held a secret, which architect did not save (state.json has it masked)", key),
				Hint: fmt.Sprintf("give it again: architect loop --resume %s '…' (every %s of the run)", flag, flag),
			}
		}
	}
	return nil
}

func configValue(c config.Config, key string) string {
	switch key {
	case "checks":
		return strings.Join(c.Checks, "\x00")
	case "agent_cmd":
		return c.AgentCmd
	case "agent_args":
		return strings.Join(c.AgentArgs, "\x00")
	case "on_iteration":
		return c.OnIteration
	case "on_finish":
		return c.OnFinish
	case "done_pattern":
		return c.DonePattern
	case "fallback":
		return strings.Join(c.Fallback, "\x00")
	case "reviewer":
		return c.Reviewer
	case "roles":
		var b strings.Builder
		for _, r := range c.Roles {
			b.WriteString(r.Role + "\x00" + r.Agent + "\x00" + r.Model + "\x00" + r.Prompt + "\x00")
		}
		return b.String()
	}
	return ""
}

// restore rebuilds what a resumed run derives from its records on disk.
func (r *runner) restore() {
	// The progress file is derived from the records: rewrite it, in case
	// the run was killed between recording an iteration and updating it.
	if err := r.writeProgress(); err != nil {
		r.warn("could not rewrite the progress file: " + err.Error())
	}
}

// carriedFrom is what a resumed run's records leave to its next prompt:
// the last iteration's error and notes, and the check results of the last
// two iterations whose checks ran.
func carriedFrom(records []record) carried {
	var c carried
	n := len(records)
	if n > 0 {
		last := records[n-1]
		if last.Error != nil && last.Interrupted == "" {
			c.execErr = *last.Error
		}
		c.protectNote = protectNote(last.Iteration.Iteration, last.ProtectedRestored)
		c.judgeNote = judgeNote(last.Iteration.Iteration, last.JudgeChanged)
		c.interruptNote = interruptNote(last.Iteration)
		c.finalNote = finalNote(last.Iteration)
	}
	// The last two iterations whose checks ran give the failures to show.
	for i := n - 1; i >= 0 && c.prevPrev == nil; i-- {
		if !records[i].ChecksRun && len(records[i].CheckResults) == 0 {
			continue
		}
		if c.prev == nil {
			c.prev = lastResults(records[i].Iteration)
		} else {
			c.prevPrev = lastResults(records[i].Iteration)
		}
	}
	return c
}
