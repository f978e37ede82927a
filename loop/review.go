package loop

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// The reviewer (--reviewer AGENT[:MODEL], YAML reviewer:) is a step of the
// iteration, called after the checks: a fresh agent process that reads
// the task, the changes so far and the checks' results, and answers with
// a verdict. The verdict is a check like any other, "review by AGENT" in
// the iteration's check results: it passes only on approval, its
// objections are its output, so they reach the next prompt as a failing
// check's output does, and the run succeeds only when the user's checks
// and the reviewer agree.
//
// The reviewer runs only when the user's checks all passed (and no guard
// failed the iteration): the tests stay the first judge, and a change they
// reject is not worth a second model's time and money. It runs in the
// workspace, confined by the run's sandbox like the agent, under the
// agent's timeouts, and its spending counts towards --max-cost with the
// agent's (one budget watch for both). It must not change files: a
// reviewer that does fails its check, and the change stays for the next
// iteration's checks to judge.

// ReviewDir is the reviewer's transcript folder inside an iteration's.
const ReviewDir = "review"

// The verdicts a reviewer can give.
const (
	VerdictApprove = "approve"
	VerdictReject  = "reject"
)

// verdictTag is a verdict: <verdict>approve</verdict> or
// <verdict>reject</verdict>, without regard to case, spaces allowed
// inside the tags.
var verdictTag = regexp.MustCompile(`(?is)<verdict>\s*(approve|reject)\s*</verdict>`)

// ParseVerdict reads a reviewer's final message: its last verdict tag
// (approve or reject; "" when it has none) and its objections, the
// message without the tag, trimmed.
func ParseVerdict(msg string) (verdict, objections string) {
	all := verdictTag.FindAllStringSubmatchIndex(msg, -1)
	if len(all) == 0 {
		return "", strings.TrimSpace(msg)
	}
	m := all[len(all)-1]
	verdict = strings.ToLower(msg[m[2]:m[3]])
	objections = strings.TrimSpace(strings.TrimSpace(msg[:m[0]]) + "\n" + strings.TrimSpace(msg[m[1]:]))
	return verdict, objections
}

// reviewer is the run's reviewer agent.
type reviewer struct {
	agent agent.Agent
	label string // as the records name it: "review by LABEL"
}

// newReviewer builds the run's reviewer, nil when there is none.
func newReviewer(cfg config.Config, deps Deps) (*reviewer, error) {
	ac, ok := cfg.ReviewerAgent()
	if !ok {
		return nil, nil
	}
	newAgent := deps.NewAgent
	if newAgent == nil {
		newAgent = agent.New
	}
	a, err := newAgent(ac)
	if err != nil {
		return nil, &usererr.Error{Msg: "reviewer " + config.AgentLabel(ac) + ": " + err.Error(), Hint: "fix --reviewer (reviewer: in the config file)", Err: err}
	}
	label := config.AgentLabel(ac)
	if ac.Name == "command" {
		label = "command:" + deps.Redact(ac.Cmd)
	}
	return &reviewer{agent: a, label: label}, nil
}

// reviewDue reports whether iteration x is reviewed: it has a reviewer,
// it is the run's own agent's, and its checks all passed with no guard
// failing it.
func (r *runner) reviewDue(x *iteration) bool {
	rec := x.rec
	return r.rev != nil && x.cand == nil && rec.ChecksRun && rec.AllChecksPassed &&
		len(rec.ProtectedRestored) == 0 && !judgeFailed(rec.JudgeChanged) && !testsFailed(rec) &&
		x.o.ErrKind != agent.ErrFatal && x.o.ExitCode != agent.ExitWaiting
}

// review is the review step of iteration x: the reviewer runs under
// agentCtx (which the budget and a note for now cancel), and its verdict
// is added to the iteration's checks. Its cost is added to the
// iteration's.
func (r *runner) review(ctx, runCtx, agentCtx context.Context, x *iteration) {
	it := &x.rec.Iteration
	i := x.n
	name := "review by " + r.rev.label
	idx := len(it.CheckResults)
	r.ev.Emit(runlog.Event{Type: runlog.EventCheckStarted, Iteration: i, Check: name, Index: ptr(idx)})
	r.logf("iteration %d/%d: the checks passed; running the reviewer (%s)", i, r.cfg.MaxIterations, r.rev.label)

	gctx, cancel := gitContext(ctx, runCtx)
	before, diffErr := x.ws.diffIfRepo(gctx)
	cancel()
	text, err := r.reviewPrompt(x, before, diffErr)
	if err != nil {
		r.warn(err.Error())
	}
	o := r.runRole(agentCtx, x, r.rev.agent, roleRun{
		prompt:     text,
		promptFile: "iteration-" + strconv.Itoa(i) + "-review.md",
		transcript: ReviewDir,
		role:       "reviewer",
		seat:       1,
		result:     "review-" + runlog.AgentResultFile,
	})
	addRoleCost(it, o, &it.ReviewCost)

	c := verdictCheck(name, o, interruption(ctx, runCtx, agentCtx) != "")
	if c.Passed && before.Tree != "" {
		// The reviewer reads; a reviewer that wrote has not reviewed what
		// the checks passed.
		gctx, cancel := gitContext(ctx, runCtx)
		after, err := x.ws.diffIfRepo(gctx)
		cancel()
		if err == nil && after.Tree != before.Tree {
			c.Passed, c.Said, c.ExitCode = false, "reviewer changed files", 1
			c.Output = "the reviewer changed files, so its approval is not taken: a reviewer must only read. Its changes stay, for the next checks to judge."
		}
	}
	c.Output, _ = prompt.TruncateTail(r.deps.Redact(proc.Clean([]byte(c.Output))), runlog.FinalMessageLimit)
	c.OutputBytes = int64(len(c.Output))
	it.CheckResults = append(it.CheckResults, c)
	it.AllChecksPassed = it.AllChecksPassed && c.Passed
	r.ev.Emit(c.FinishedEvent(i, idx))
	if c.Passed {
		r.logf("iteration %d/%d: %s: approved", i, r.cfg.MaxIterations, name)
	} else {
		r.logf("iteration %d/%d: %s: %s", i, r.cfg.MaxIterations, name, c.Status())
	}
}

// verdictCheck is the check result of a reviewer's run o: what its verdict
// says, or why it gave none (stopped: the run stopped it).
func verdictCheck(name string, o agent.Outcome, stopped bool) runlog.CheckResult {
	c := runlog.CheckResult{Name: name, ExitCode: o.ExitCode, TimedOut: o.TimedOut || o.Inactive, Duration: o.Duration.Seconds()}
	verdict, objections := ParseVerdict(o.FinalMessage)
	switch {
	case o.TimedOut || o.Inactive:
		c.ExitCode = -1
		c.Said = "reviewer stopped at its timeout"
		c.Output = "the reviewer was stopped at its timeout before giving a verdict"
	case stopped:
		c.Output = "the reviewer was stopped before giving a verdict"
	case o.Failed() && verdict != VerdictReject:
		// An approval from a run that failed is not taken.
		c.Said = "reviewer failed"
		c.Output = fmt.Sprintf("the reviewer's run failed (exit status %d), so its verdict is not taken", o.ExitCode)
		if o.Err != "" {
			c.Output += ": " + o.Err
		}
	case verdict == VerdictApprove:
		c.Passed = true
		c.Said = "approved"
		c.Output = objections
	case verdict == VerdictReject:
		c.Said = "rejected"
		c.Output = objections
		if c.Output == "" {
			c.Output = "the reviewer rejected the change without saying why"
		}
	default:
		c.Said = "no verdict"
		c.Output = "the reviewer gave no verdict (<verdict>approve</verdict> or <verdict>reject</verdict>); its last words: " + objections
	}
	if !c.Passed && c.ExitCode == 0 {
		c.ExitCode = 1 // a check that failed does not say exit status 0
	}
	return c
}

// reviewPrompt is what the reviewer is asked: the task, the changes so
// far, the checks that passed, and the form of its answer.
func (r *runner) reviewPrompt(x *iteration, d reviewDiff, diffErr error) (string, error) {
	task := r.cfg.Task
	var err error
	if r.cfg.Spec != "" {
		b, rerr := os.ReadFile(r.cfg.Spec)
		if rerr != nil {
			err = fmt.Errorf("the review prompt: cannot read the specification file %s: %w", r.cfg.Spec, rerr)
		} else {
			task = proc.Clean(b)
		}
	}
	var b strings.Builder
	if role := r.cfg.ReviewerRole(); role.Prompt != "" {
		tmpl, terr := role.RolePrompt(r.cfg.Dir)
		if terr != nil {
			err = terr
		}
		if strings.TrimSpace(tmpl) != "" {
			b.WriteString(strings.TrimSpace(tmpl) + "\n\n")
		}
	}
	fmt.Fprintf(&b, "You are the reviewer of a coding agent's work, in iteration %d of an automated loop. Another agent made the changes below; the user's checks all pass on them. Judge whether they do the task completely and correctly. Do not change any file: read the code and run read-only commands if you need to.\n\n", x.n)
	b.WriteString("## The task\n\n")
	b.WriteString(strings.TrimSpace(task))
	b.WriteString("\n\n## The checks (all passed)\n\n")
	for _, c := range x.rec.CheckResults {
		fmt.Fprintf(&b, "- `%s`\n", c.Name)
	}
	b.WriteString("\n## The changes so far\n\n")
	switch {
	case diffErr != nil:
		b.WriteString("(They could not be computed: look at the files.)\n")
	case !d.known:
		b.WriteString("(The workspace is not a git repository: look at the files.)\n")
	case strings.TrimSpace(d.text) == "":
		b.WriteString("(No change since the run started.)\n")
	default:
		text, rest := prompt.Truncate(d.text, prompt.DiffLimit*4)
		b.WriteString("```diff\n" + proc.Clean([]byte(text)) + "\n```\n")
		if rest > 0 {
			fmt.Fprintf(&b, "(%d more bytes of the diff are not shown: look at the files.)\n", rest)
		}
	}
	b.WriteString("\n## Your answer\n\n")
	b.WriteString("End your final message with your verdict, exactly one of:\n\n")
	b.WriteString("    <verdict>approve</verdict>\n    <verdict>reject</verdict>\n\n")
	b.WriteString("Approve when the task is done and nothing needs fixing. When you reject, write your objections after the verdict: each one concrete (the file, what is wrong, what to change). They are given to the agent for its next attempt.\n")
	return b.String(), err
}

// reviewDiff is the changes so far as the reviewer is shown them.
type reviewDiff struct {
	text, Tree string
	known      bool // the workspace is a git repository
}

// diffIfRepo is the changes so far in a git workspace; nothing known
// outside one.
func (w *workspace) diffIfRepo(ctx context.Context) (reviewDiff, error) {
	if w.repo == nil {
		return reviewDiff{}, nil
	}
	d, err := w.diff(ctx)
	if err != nil {
		return reviewDiff{}, err
	}
	return reviewDiff{text: d.Text, Tree: d.Tree, known: true}, nil
}
