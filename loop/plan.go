package loop

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// Planners (roles: entries with role: planner) run at the start of each
// iteration of the run's own agent, before the executor: each a fresh
// agent process whose prompt is its template followed by the task, the
// changes so far and the checks that failed last. Its final message, cut
// to PlanLimit, is added to the executor's prompt as "## Plan for This
// Iteration". Its spending is in the iteration's spending watch (a seat
// of its own), so it counts towards --max-cost, is recorded as plan_cost
// (and in cost), and is kept when the run is stopped or killed.
//
// A planner must not change files: what it changed in the workspace is
// put back to how it was before it ran (plan_files_restored on the
// record), so the executor starts from the tree the last iteration left.

// PlanDir is a planner's transcript folder inside an iteration's.
const PlanDir = "plan"

// PlanLimit bounds a plan in the executor's prompt, in bytes.
const PlanLimit = 8 << 10

// planner is one planner of the run.
type planner struct {
	role  config.Role
	agent agent.Agent
	label string // the agent, as the logs name it
}

// newPlanners builds the run's planners.
func newPlanners(cfg config.Config, deps Deps) ([]planner, error) {
	newAgent := deps.NewAgent
	if newAgent == nil {
		newAgent = agent.New
	}
	var ps []planner
	for _, role := range cfg.Planners() {
		ac := cfg.RoleAgent(role)
		a, err := newAgent(ac)
		if err != nil {
			return nil, &usererr.Error{Msg: "planner " + config.AgentLabel(ac) + ": " + err.Error(), Hint: "fix the planner's agent in roles:", Err: err}
		}
		label := config.AgentLabel(ac)
		if ac.Name == "command" {
			label = "command:" + deps.Redact(ac.Cmd)
		}
		ps = append(ps, planner{role: role, agent: a, label: label})
	}
	return ps, nil
}

// seats is how many agent runs an iteration of the run's own agent has:
// the executor (seat 0), the reviewer (seat 1), the planners after.
func (r *runner) seats() int { return 2 + len(r.planners) }

// planStep is the planners' step of iteration x of the run's own agent
// (none for a candidate): the iteration starts, and its planners run. It
// reports whether the iteration ends there (the run stopped a planner).
func (r *runner) planStep(ctx, runCtx, agentCtx context.Context, x *iteration, cancelAgent context.CancelCauseFunc) bool {
	if len(r.planners) == 0 || x.cand != nil {
		return false
	}
	r.beginIteration(x, cancelAgent)
	return r.plan(ctx, runCtx, agentCtx, x)
}

// plan runs the planners of iteration x under agentCtx, and adds their
// plans to its prompt (rewriting its prompt file). It reports whether the
// iteration ends there: the run stopped a planner.
func (r *runner) plan(ctx, runCtx, agentCtx context.Context, x *iteration) bool {
	var plans []string
	for k, p := range r.planners {
		text := r.runPlanner(ctx, runCtx, agentCtx, x, k, p)
		if why := interruption(ctx, runCtx, agentCtx); why != "" {
			it := &x.rec.Iteration
			it.Cost = ptr(0.0)
			for _, o := range x.planOuts {
				addRoleCost(it, o, &it.PlanCost)
			}
			r.interrupted(ctx, x, why)
			return true
		}
		if text != "" {
			plans = append(plans, text)
		}
	}
	if len(plans) == 0 {
		return false
	}
	plan, rest := prompt.Truncate(strings.Join(plans, "\n\n"), PlanLimit)
	if rest > 0 {
		plan += fmt.Sprintf("\n\n(%d more bytes of the plan are not shown.)", rest)
	}
	x.rec.Plan = plan
	x.prompt = strings.TrimRight(x.prompt, "\n") + "\n\n## Plan for This Iteration\n\nA planner read the task, the changes so far and the failing checks, and proposes this plan for this iteration. Follow it where it is right; the task and the checks decide.\n\n" + plan + "\n"
	if err := os.WriteFile(x.file, []byte(x.prompt), 0o600); err != nil {
		r.warn("writing the prompt with its plan: " + err.Error())
	}
	return false
}

// runPlanner runs the k-th planner of iteration x and returns its plan
// (masked, "" when it gave none). What it changed is put back.
func (r *runner) runPlanner(ctx, runCtx, agentCtx context.Context, x *iteration, k int, p planner) string {
	i := x.n
	suffix := ""
	if k > 0 {
		suffix = "-" + strconv.Itoa(k+1)
	}
	r.logf("iteration %d/%d: running the %s (%s)", i, r.cfg.MaxIterations, p.role.Label(), p.label)
	gctx, cancel := gitContext(ctx, runCtx)
	before, diffErr := x.ws.diffIfRepo(gctx)
	beforeTree := x.ws.tree(gctx)
	cancel()
	text, err := r.planPrompt(p, before, diffErr)
	if err != nil {
		r.warn(err.Error())
	}
	o := r.runRole(agentCtx, x, p.agent, roleRun{
		prompt:     text,
		promptFile: "iteration-" + strconv.Itoa(i) + "-plan" + suffix + ".md",
		transcript: PlanDir + suffix,
		role:       "planner",
		seat:       2 + k,
		result:     "plan-" + runlog.AgentResultFile,
	})
	x.planOuts = append(x.planOuts, o)

	if beforeTree != "" {
		// A planner reads: what it wrote is put back, so that the executor
		// starts from the tree the last iteration left.
		gctx, cancel := gitContext(ctx, runCtx)
		if after := x.ws.tree(gctx); after != "" && after != beforeTree {
			if err := gitwt.ApplyTrees(gctx, x.ws.dir, after, beforeTree); err != nil {
				r.warn(fmt.Sprintf("the %s changed files, and they could not be put back: %s", p.role.Label(), r.cleanText(err.Error())))
			} else {
				r.warn(fmt.Sprintf("iteration %d: the %s changed files; they were put back (a planner must only read)", i, p.role.Label()))
			}
			x.rec.PlanFilesRestored = true
		}
		cancel()
	}
	if interruption(ctx, runCtx, agentCtx) != "" {
		return ""
	}
	switch {
	case o.TimedOut || o.Inactive:
		r.warn(fmt.Sprintf("iteration %d: the %s was stopped at its timeout; the executor runs without its plan", i, p.role.Label()))
		return ""
	case o.Failed():
		r.warn(fmt.Sprintf("iteration %d: the %s failed (exit status %d); the executor runs without its plan", i, p.role.Label(), o.ExitCode))
		return ""
	}
	plan := strings.TrimSpace(r.deps.Redact(proc.Clean([]byte(o.FinalMessage))))
	r.logf("iteration %d/%d: the %s planned (%d bytes)", i, r.cfg.MaxIterations, p.role.Label(), len(plan))
	return plan
}

// tree is the working tree as a git tree object (less the files the
// checks leave out of commits): "" outside a repository or on an error.
func (w *workspace) tree(ctx context.Context) string {
	if w.repo == nil {
		return ""
	}
	t, _, err := w.gitChanges(ctx).Tree(ctx, w.outputs.leftOut())
	if err != nil {
		return ""
	}
	return t
}

// planPrompt is what a planner is asked: its template, then the task, the
// changes so far, the checks that failed last, and the form of its answer.
func (r *runner) planPrompt(p planner, d reviewDiff, diffErr error) (string, error) {
	var errs []string
	tmpl, err := p.role.RolePrompt(r.cfg.Dir)
	if err != nil {
		errs = append(errs, err.Error())
	}
	task := r.cfg.Task
	if r.cfg.Spec != "" {
		if b, err := os.ReadFile(r.cfg.Spec); err != nil {
			errs = append(errs, fmt.Sprintf("the plan prompt: cannot read the specification file %s: %v", r.cfg.Spec, err))
		} else {
			task = proc.Clean(b)
		}
	}
	var b strings.Builder
	if strings.TrimSpace(tmpl) == "" {
		b.WriteString("You are the planner of an automated coding loop. Read the task, the changes so far and the failing checks, and plan the next step for the agent that will make the changes.")
	} else {
		b.WriteString(strings.TrimSpace(tmpl))
	}
	b.WriteString("\n\nDo not change any file: read the code and run read-only commands if you need to. Your final message is the plan, given to the agent that makes the changes.\n\n## The task\n\n")
	b.WriteString(strings.TrimSpace(task))
	b.WriteString("\n\n## The changes so far\n\n")
	switch {
	case diffErr != nil:
		b.WriteString("(They could not be computed: look at the files.)\n")
	case !d.known:
		b.WriteString("(The workspace is not a git repository: look at the files.)\n")
	case strings.TrimSpace(d.text) == "":
		b.WriteString("(No change since the run started.)\n")
	default:
		text, rest := prompt.Truncate(d.text, prompt.DiffLimit)
		b.WriteString("```diff\n" + proc.Clean([]byte(text)) + "\n```\n")
		if rest > 0 {
			fmt.Fprintf(&b, "(%d more bytes of the diff are not shown: look at the files.)\n", rest)
		}
	}
	failed := 0
	for _, c := range r.last.prev {
		if c.Passed {
			continue
		}
		if failed == 0 {
			b.WriteString("\n## The checks that failed in the last iteration\n")
		}
		failed++
		out, _ := prompt.TruncateTail(c.Output, 4<<10)
		fmt.Fprintf(&b, "\n### `%s` (%s)\n\n```\n%s\n```\n", c.Name, c.Status(), strings.TrimSpace(out))
	}
	if len(errs) > 0 {
		return b.String(), fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return b.String(), nil
}

// addRoleCost adds a role's cost and tokens to the iteration's, and its
// cost to *dst (review_cost, plan_cost): the iteration's cost is unknown
// when the role's is.
func addRoleCost(it *runlog.Iteration, o agent.Outcome, dst **float64) {
	if o.CostKnown {
		c := o.Cost
		if *dst != nil {
			c += **dst
		}
		*dst = &c
		if it.Cost != nil {
			it.Cost = ptr(*it.Cost + o.Cost)
		}
	} else {
		it.Cost = nil
	}
	if o.Usage != (agent.Usage{}) {
		t := runlog.Tokens{}
		if it.Tokens != nil {
			t = *it.Tokens
		}
		t.Input += o.Usage.Input
		t.CachedInput += o.Usage.CachedInput
		t.Output += o.Usage.Output
		it.Tokens = &t
	}
}
