package loop

import (
	"context"
	"os"
	"path/filepath"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
)

// roleRun is what differs between the roles beside the executor (a
// planner, the reviewer) when one runs: its prompt and where it is kept,
// its transcript folder, its ARCHITECT_ROLE, its seat of the iteration's
// spending watch and the name of its result file.
type roleRun struct {
	prompt     string // unmasked: runRole masks it
	promptFile string // its name in the state folder's prompts/
	transcript string // its folder in the iteration's transcript folder
	role       string
	seat       int
	result     string
}

// runRole runs agent a for iteration x as rr says, under agentCtx and the
// executor's limits (timeouts, kill grace, the sandbox with the judge's
// files read-only, the spending watch), its prompt masked and saved and
// its output in its transcript; its outcome is cleaned, with the cost
// last reported while it ran when it reported none at its end.
func (r *runner) runRole(agentCtx context.Context, x *iteration, a agent.Agent, rr roleRun) agent.Outcome {
	i := x.n
	text := r.deps.Redact(rr.prompt)
	file := r.ws.state("prompts", rr.promptFile)
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		r.warn("writing the " + rr.role + "'s prompt: " + err.Error())
	}
	tr := r.openTranscript(filepath.Join(runlog.TranscriptDir(i), rr.transcript))
	copyOut, copyErr := tr.agentCopies()
	box := r.boxOf(x)
	start := box.AgentStart(r.readOnlyFiles(x.ws.dir, nil))
	if start.Note != "" {
		r.warn(start.Note)
	}
	env := r.deps.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], "ARCHITECT_ROLE="+rr.role)
	watch := x.spends.seat(rr.seat)
	resultFile := r.ws.state(rr.result)
	began := r.deps.Now()
	o := a.Run(agentCtx, agent.Request{
		Prompt:            text,
		PromptFile:        file,
		ResultFile:        resultFile,
		Env:               env,
		Dir:               x.ws.dir,
		Iteration:         i,
		MaxIterations:     r.cfg.MaxIterations,
		Timeout:           r.cfg.IterationTimeout,
		InactivityTimeout: r.cfg.InactivityTimeout,
		Grace:             r.cfg.KillGrace,
		OnSpend:           watch.spend,
		CopyStdout:        copyOut,
		CopyStderr:        copyErr,
		Wrap:              start.Wrap,
		WrapAttr:          start.Attr,
		TempDir:           box.TempDir(),
	})
	if err := tr.close(); err != nil {
		r.transcriptFailed(err)
	}
	o.Duration = max(o.Duration, r.deps.Now().Sub(began))
	o = r.sanitize(o)
	if !o.CostKnown {
		if s := watch.lastSpend(); s.CostKnown {
			o.Cost, o.CostKnown = s.Cost, true
		}
	}
	watch.finished(o)
	_ = os.Remove(resultFile)
	return o
}
