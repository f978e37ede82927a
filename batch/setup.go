package batch

import (
	"context"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/preflight"
	"github.com/architect-dev/architect/usererr"
)

// Prepare builds every task's agent and secret masking, before any task
// starts, filling opts.Agents and opts.Redact. A task whose agent cannot
// be built, or whose masking cannot be made, refuses the batch. redactor
// makes a task's masking as `architect loop` makes a run's (from the
// environment as it is now: the model keys' values too, before the
// credential broker takes them out of it).
func Prepare(tasks []Task, opts *Options, redactor func(config.Config) (func(string) string, error)) error {
	opts.Agents = map[string]agent.Agent{}
	opts.Redact = map[string]func(string) string{}
	for _, t := range tasks {
		ag, err := taskAgent(t)
		if err != nil {
			return err
		}
		opts.Agents[t.ID] = ag
		cfg := t.Config
		cfg.Dir = opts.Dir // the repository the task's worktree comes from
		if opts.Redact[t.ID], err = redactor(cfg); err != nil {
			return err
		}
	}
	return nil
}

// Setup runs every task's pre-flight (with its agent in opts.Agents,
// from Prepare), before any task starts. The pre-flight failures of all
// tasks refuse the batch together (preflight.Failures, each named by its
// task); warn gets each pre-flight warning.
func Setup(ctx context.Context, tasks []Task, opts *Options, warn func(preflight.Item)) error {
	var failed preflight.Failures
	probed := &preflight.AgentCache{}
	for _, t := range tasks {
		pre := preflight.Run(ctx, t.Config, opts.Agents[t.ID], preflight.Options{NoWorkspace: true, Agents: probed})
		for _, it := range pre.Items {
			it.Check = "task " + t.ID + ": " + it.Check
			switch it.Status {
			case preflight.Fail:
				failed = append(failed, it)
			case preflight.Warn:
				warn(it)
			}
		}
	}
	if len(failed) > 0 {
		return failed
	}
	return nil
}

// taskAgent builds task t's agent.
func taskAgent(t Task) (agent.Agent, error) {
	ag, err := agent.New(t.Config.AgentConfig())
	if err != nil {
		return nil, &usererr.Error{Msg: "task " + t.ID + ": " + err.Error(), Hint: "fix the task's agent options in the batch file", Err: err}
	}
	return ag, nil
}
