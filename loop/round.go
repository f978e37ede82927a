package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/changes"
	"github.com/architect-dev/architect/gitwt"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/sandbox"
)

// A run with several candidates (--candidates N) runs each iteration as a
// round: N agents at once, each in its own worktree at the round's base
// (the workspace as the iterations so far left it), with the same prompt
// and ARCHITECT_CANDIDATE=k in its environment. Each candidate is the
// attempt step of one agent (attempt), in its worktree: its agent, its
// guards (protected files, the judge, the tests), its checks. The checks
// pick the candidate kept (rankCandidates); its change is carried to the
// workspace, where the iteration goes on as one agent's would: the
// verdict (with its last look), the record (the commit), the decision.
// The other worktrees are reset at the next round, not removed; the run
// removes them when it ends.

// errWon stops the other candidates of a round once one succeeded
// (candidates_finish first).
var errWon = errors.New("another candidate succeeded")

// CandidatesDir is where a run keeps its candidates' worktrees, in its
// state folder: one folder per candidate, named by its number.
const CandidatesDir = "candidates"

// candidate is one candidate of the run: its worktree and its agent.
type candidate struct {
	k    int
	top  string     // the worktree's top folder
	ws   *workspace // where its agent and checks run (top, or the workspace's sub-folder of it)
	slot *slot
	made bool             // its worktree exists (made this session)
	sb   *sandbox.Sandbox // confines it to its worktree (the run's when off)
	// w watches its worktree from its creation to the end of the run;
	// nil where that is not possible. ch follows the worktree through a
	// round on w, from the moment the worktree is at the round's base:
	// what its agent changed is committed from it, in the size of the
	// change, and what the whole round touched is known from it
	// (roundEnd).
	w       *changes.Watcher
	noWatch bool // watching it failed (too many folders, not Linux): not tried again
	ch      *changes.Changes
	// end is its worktree as its last round left it, once every process
	// of that round had ended: what brings it to the next round's commit
	// by what changed alone (gitwt.MoveCandidate). nil when that is not
	// known; noEnd then says why.
	end   *gitwt.CandidateEnd
	noEnd string
	// changeFailed: the commit of its change failed this round, maybe
	// half way (the index written, HEAD not moved).
	changeFailed bool
}

// roundOf is a round's outcome per candidate, beside the iteration value
// each candidate ran as.
type roundOf struct {
	x        *iteration
	c        *candidate
	commit   string // its content after its agent (and the guards), as a commit on the round's base
	size     gitwt.Change
	ok       bool   // checks passing and completion declared
	signal   string // its completion signal
	stopped  bool   // stopped because another succeeded first
	finished int    // order of finishing, 1-based
}

// candidatesOn reports whether the run's iterations are rounds.
func (r *runner) candidatesOn() bool { return r.candidateCount() > 1 }

// candidateCount is the number of candidates a round starts, before the
// budget has its say.
func (r *runner) candidateCount() int { return r.cfg.CandidateCount() }

// makeCandidates builds the run's candidates' agents: the run's own agent
// N times, or one per entry of the list form.
func (r *runner) makeCandidates() error {
	n := r.candidateCount()
	if n <= 1 {
		return nil
	}
	if r.ws.repo == nil {
		return errors.New("--candidates needs a git repository: each candidate works in a worktree of its own")
	}
	newAgent := r.deps.NewAgent
	if newAgent == nil {
		newAgent = agent.New
	}
	configs := r.cfg.CandidateConfigs()
	for k := 1; k <= n; k++ {
		c := &candidate{k: k, top: r.ws.state(CandidatesDir, strconv.Itoa(k))}
		sb, err := r.candidateSandbox(c.top)
		if err != nil {
			return fmt.Errorf("candidate %d's sandbox: %w", k, err)
		}
		c.sb = sb
		if len(r.cfg.CandidateAgents) == 0 {
			c.slot = nil // the run's current agent, looked up per round
		} else {
			ac := configs[k-1]
			a, err := newAgent(ac)
			if err != nil {
				return fmt.Errorf("candidate %d (%s): %w", k, ac.Name, err)
			}
			model := ac.Model
			if ac.Name == "command" {
				model = r.deps.Redact(ac.Cmd)
			}
			c.slot = &slot{agent: a, name: ac.Name, model: model}
			c.slot.Agent = agentLabel(c.slot.name, c.slot.model)
		}
		r.cands = append(r.cands, c)
	}
	return nil
}

// roundSize is how many candidates round i runs: all of them, or as many
// as the budget left covers at the last round's cost per candidate (the
// most any candidate cost), said when fewer; 0 when it covers none, and
// the run stops before spending.
func (r *runner) roundSize(i int) int {
	n := len(r.cands)
	budget := r.cfg.MaxCost
	if budget <= 0 || len(r.records) == 0 {
		return n
	}
	last := r.records[len(r.records)-1]
	each := 0.0
	for _, c := range last.Candidates {
		if c.Cost != nil {
			each = max(each, *c.Cost)
		}
	}
	if each <= 0 {
		return n
	}
	left := budget - r.res.KnownCost
	fit := int(math.Floor(left / each))
	if fit >= n {
		return n
	}
	if fit < 1 {
		return 0
	}
	r.warn(fmt.Sprintf("iteration %d: the budget left ($%.4f of $%.4f) covers %d candidate%s at the last round's $%.4f each: running %d of %d candidates",
		i, max(left, 0), budget, fit, plural(fit), each, fit, n))
	return fit
}

// prepareRound makes the round's base (a commit of the workspace as the
// iterations so far left it) and brings the first n candidates'
// worktrees to it, at once: each by what its last round changed where
// that is known (bringCandidate), else by ResetCandidate; then each gets
// a watched Changes for the round.
func (r *runner) prepareRound(ctx context.Context, i, n int) (base string, err error) {
	tree, head, err := r.ws.gitChanges(ctx).Tree(ctx, r.ws.outputs.leftOut())
	if err != nil {
		return "", fmt.Errorf("taking the workspace's state: %w", err)
	}
	base = head
	headTree := ""
	if head != "" {
		headTree, _ = r.ws.repo.Output(ctx, "rev-parse", head+"^{tree}")
	}
	if head == "" || strings.TrimSpace(headTree) != tree {
		if base, err = r.ws.repo.CommitTree(ctx, tree, head, "architect: the state a round of candidates starts from"); err != nil {
			return "", fmt.Errorf("recording the workspace's state: %w", err)
		}
	}
	sub := relDir(r.ws.repo.Dir(), r.ws.dir)
	errs := make([]error, n)
	// git registers new worktrees one at a time: two `git worktree add` at
	// once can each read the other's half-written registration.
	for _, c := range r.cands[:n] {
		if !c.made {
			err := r.ws.repo.AddCandidate(ctx, c.top, base)
			if err != nil {
				// A worktree a killed session left half reset (its index
				// locked, say) is made again.
				if rerr := r.ws.repo.RemoveCandidate(ctx, c.top); rerr == nil {
					err = r.ws.repo.AddCandidate(ctx, c.top, base)
				}
			}
			if err != nil {
				return "", fmt.Errorf("making candidate %d's worktree: %w", c.k, err)
			}
		}
	}
	var wg sync.WaitGroup
	how := make([]string, n) // why a worktree was reset; "-" for one made this round
	for _, c := range r.cands[:n] {
		how[c.k-1] = "-"
		wg.Go(func() {
			if c.made {
				how[c.k-1], errs[c.k-1] = r.bringCandidate(ctx, c, base)
			}
			if errs[c.k-1] != nil {
				return
			}
			c.made = true
			dir := filepath.Join(c.top, sub)
			// A DONE file a candidate wrote in an earlier round signals
			// nothing in this one. Its own state folder holds what its
			// agent reads and writes there: the prompt, its result file.
			_ = os.RemoveAll(filepath.Join(dir, runlog.StateDir))
			if err := os.MkdirAll(filepath.Join(dir, runlog.StateDir), 0o700); err != nil {
				errs[c.k-1] = err
				return
			}
			repo, err := gitwt.Open(ctx, dir)
			if err != nil {
				errs[c.k-1] = err
				return
			}
			c.ws = &workspace{dir: dir, repo: repo, initialRef: base, excludes: r.ws.excludes}
			if c.w == nil && !c.noWatch {
				// Its worktree is a fresh checkout of base.
				w, err := changes.Watch(ctx, repo, c.ws.excludes, true)
				c.w, c.noWatch = w, err != nil
			}
			c.ch = newCandidateChanges(ctx, c.ws, c.w)
			c.changeFailed = false
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return "", fmt.Errorf("preparing candidate %d's worktree: %w", k+1, err)
		}
	}
	r.logPrepared(i, base, how)
	return base, nil
}

// bringCandidate brings c's worktree to base: by what its last round
// changed (gitwt.MoveCandidate) when c.end says what that was, else, or
// when that fails, with gitwt.ResetCandidate. It says how, for the
// iterations log.
func (r *runner) bringCandidate(ctx context.Context, c *candidate, base string) (string, error) {
	end, why := c.end, c.noEnd
	c.end, c.noEnd = nil, ""
	if end != nil && c.w != nil {
		// Nothing may have changed since its round's last look: the
		// round's processes are gone, and nothing else writes there.
		if seen := c.w.Take(ctx); seen.All || seen.Index || len(seen.Paths) > 0 {
			end, why = nil, "its worktree changed after its round's last look"
		}
	}
	if end != nil {
		err := r.ws.repo.MoveCandidate(ctx, c.top, *end, base, nil)
		if err == nil {
			return "", nil
		}
		if ctx.Err() != nil {
			return "", err
		}
		why = "bringing it by what changed failed: " + r.cleanText(err.Error())
	}
	if why == "" {
		why = "what its last round touched is not known"
	}
	return why, r.ws.repo.ResetCandidate(ctx, c.top, base, nil)
}

// logPrepared says in the iterations log how the round's candidates'
// worktrees were brought to base: by what changed, or reset and why.
func (r *runner) logPrepared(i int, base string, how []string) {
	var moved []string
	var reset []string
	for k, why := range how {
		switch why {
		case "-":
		case "":
			moved = append(moved, strconv.Itoa(k+1))
		default:
			reset = append(reset, fmt.Sprintf("candidate %d reset (%s)", k+1, why))
		}
	}
	if len(moved)+len(reset) == 0 {
		return
	}
	short := base
	if len(short) > 12 {
		short = short[:12]
	}
	parts := reset
	if len(moved) > 0 {
		parts = append([]string{"candidate " + strings.Join(moved, ", ") + " brought by what changed"}, reset...)
	}
	r.logEvent("ROUND", "iteration %d: worktrees at %s: %s", i, short, strings.Join(parts, "; "))
}

// round is the attempt step of a run with several candidates: the round's
// candidates at once, the kept one's change carried to the workspace, x
// completed as the kept candidate's iteration with the round's cost and
// every candidate's record. A round that could not be set up is a stop
// (x.halt).
func (r *runner) round(ctx, runCtx context.Context, x *iteration) {
	i := x.n
	n := r.roundSize(i)
	if n == 0 {
		x.halt = stopAt(runlog.StopBudget, fmt.Sprintf("spent $%.4f of the $%.4f budget: what is left does not cover one more candidate at the last round's cost", r.res.KnownCost, r.cfg.MaxCost))
		return
	}
	gctx, cancel := gitContext(ctx, runCtx)
	base, err := r.prepareRound(gctx, i, n)
	cancel()
	if err != nil {
		if why := interruption(ctx, runCtx, nil); why != "" {
			r.interrupted(ctx, x, why)
			return
		}
		x.halt = stopAt(runlog.StopError, "could not set up the round's candidates: "+r.cleanText(err.Error()))
		return
	}
	roundCtx, cancelRound := context.WithCancelCause(runCtx)
	defer cancelRound(nil)
	watch := r.startInflight(i, x.began, cancelRound, n)
	r.logEvent("START", "iteration %d/%d: %d candidates", i, r.cfg.MaxIterations, n)
	r.ev.Emit(runlog.Event{Type: runlog.EventIterationStarted, Iteration: i, MaxIterations: r.cfg.MaxIterations, Agent: r.agent().name, Model: r.agent().model})
	r.logf("iteration %d/%d: running %d candidate%s at once", i, r.cfg.MaxIterations, n, plural(n))
	stopNotes := r.watchNotes(roundCtx, i, cancelRound)

	outs := make([]*roundOf, n)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		order int
	)
	for idx, c := range r.cands[:n] {
		sl := c.slot
		if sl == nil {
			sl = r.agent()
		}
		// Its copy of the prompt, in its worktree, which its sandbox lets it read.
		file := c.ws.state("prompt.md")
		if err := os.WriteFile(file, []byte(x.prompt), 0o600); err != nil {
			file = x.file
		}
		y := &iteration{n: i, began: r.deps.Now(), slot: sl, ws: c.ws, prompt: x.prompt, file: file, cand: c, watch: watch.seat(idx), parent: roundCtx}
		y.rec.Iteration = runlog.Iteration{Iteration: i, Agent: sl.name, Model: sl.model, StartedAt: stamp(y.began), CheckResults: []runlog.CheckResult{}}
		out := &roundOf{x: y, c: c}
		outs[idx] = out
		wg.Go(func() {
			r.ev.Emit(runlog.Event{Type: runlog.EventCandidateStarted, Iteration: i, Candidate: &runlog.Candidate{N: c.k, Agent: sl.name, Model: sl.model}})
			r.attempt(ctx, roundCtx, y)
			r.roundEnd(ctx, runCtx, y)
			out.commit, out.size = y.candCommit, y.candSize
			out.stopped = y.stopped
			if !y.stopped && !y.refused && y.rec.Interrupted == "" {
				out.ok = succeeded(r.cfg, y.rec)
				out.signal, _ = r.completionSignalIn(y.rec, y.ws)
				out.ok = out.ok && out.signal != ""
			}
			mu.Lock()
			order++
			out.finished = order
			mu.Unlock()
			cr := candidateRecord(out, "")
			r.ev.Emit(runlog.Event{Type: runlog.EventCandidateFinished, Iteration: i, Candidate: &cr})
			if out.ok && r.cfg.CandidatesFinishFirst() {
				cancelRound(errWon)
			}
		})
	}
	wg.Wait()
	stopNotes()
	r.finishRound(ctx, runCtx, roundCtx, x, base, outs)
}

// finishRound completes x from the round's candidates: an interrupted
// round is recorded as one; otherwise the kept candidate's change goes to
// the workspace and x becomes its iteration, with the round's cost.
func (r *runner) finishRound(ctx, runCtx, roundCtx context.Context, x *iteration, base string, outs []*roundOf) {
	why := interruption(ctx, runCtx, roundCtx)
	refused := true
	for _, o := range outs {
		refused = refused && o.x.refused
	}
	if refused && why == "" {
		x.refused, x.o = true, outs[0].x.o
		r.ws.inflightDone()
		return
	}
	ranked := rankCandidates(outs)
	kept := ranked[0]
	if why != "" {
		r.interrupted(ctx, x, why)
		x.rec.Candidates = roundRecords(ranked, nil)
		x.rec.Cost, x.rec.Tokens = roundCost(outs)
		return
	}
	gctx, cancel := gitContext(ctx, runCtx)
	defer cancel()
	if kept.commit != "" && kept.commit != base {
		if err := gitwt.ApplyTrees(gctx, r.ws.repo.Dir(), base, kept.commit); err != nil {
			x.halt = stopAt(runlog.StopError, fmt.Sprintf("could not bring candidate %d's change to the workspace: %s", kept.c.k, r.cleanText(err.Error())))
			x.rec.Candidates = roundRecords(ranked, kept)
			return
		}
	}
	r.judgeMoveOn(kept.x.rec.JudgeChanged)
	for _, o := range outs {
		r.keepCandidateDiff(gctx, x.n, o, base)
	}
	y := kept.x
	x.slot, x.o, x.tr = y.slot, y.o, nil
	x.rec = y.rec
	x.rec.StartedAt = stamp(x.began)
	x.rec.Candidates = roundRecords(ranked, kept)
	x.rec.Cost, x.rec.Tokens = roundCost(outs)
	x.rec.Duration = r.deps.Now().Sub(x.began).Seconds()
	if kept.signal == "done_file" {
		// The kept candidate's DONE file is the run's.
		if err := runlog.WriteFileQuick(donePath(r.cfg, r.ws), []byte("candidate "+strconv.Itoa(kept.c.k)+"\n")); err != nil {
			r.warn("could not pass on candidate " + strconv.Itoa(kept.c.k) + "'s DONE file: " + err.Error())
		}
	}
	x.lessons = r.lessonsOf(ranked[1:], kept)
	if len(x.lessons) > 0 {
		// Before the round's record: a resume finds them beside it.
		if err := runlog.WriteLessons(r.ws.state(), x.n, lessonsOnDisk(x.lessons)); err != nil {
			r.warn(fmt.Sprintf("iteration %d: could not keep what the losing candidates showed for a resume: %s", x.n, err))
		}
	}
	if x.ws.repo != nil {
		if d, err := x.ws.diff(gctx); err == nil {
			x.rec.Tree = d.Tree
			x.rec.DiffStat = r.deps.Redact(d.Stat)
			x.diff = &d
			r.keepPatch(x, d.Text)
			r.keepRunDiff(d)
		}
	}
}

// rankCandidates orders a round's candidates, the one kept first: all
// checks passing with completion declared; then more checks passing;
// fewer lines of failing checks' output; a smaller change; a lower cost
// (an unknown one last); an earlier finish. A candidate stopped, refused
// or interrupted comes after those that ran to their end.
func rankCandidates(outs []*roundOf) []*roundOf {
	ranked := slices.Clone(outs)
	slices.SortStableFunc(ranked, func(a, b *roundOf) int {
		return compareCandidates(a, b).cmp
	})
	return ranked
}

// comparison is how two candidates compare: cmp < 0 when a goes first,
// and the rule that decided, in words for the one behind.
type comparison struct {
	cmp  int
	rule string
}

func compareCandidates(a, b *roundOf) comparison {
	ra, rb := ranAll(a), ranAll(b)
	passedA, passedB := a.x.rec.passing(), b.x.rec.passing()
	linesA, linesB := failingLines(a.x.rec), failingLines(b.x.rec)
	sizeA, sizeB := a.size.Added+a.size.Deleted, b.size.Added+b.size.Deleted
	costA, costB := costOf(a.x.rec), costOf(b.x.rec)
	rules := []struct {
		c    int
		rule string
	}{
		{boolFirst(ra, rb), "it did not run to its end"},
		{boolFirst(a.ok, b.ok), "the kept candidate passed every check and declared completion"},
		{-cmpInt(passedA, passedB), "fewer of its checks passed"},
		{cmpInt(linesA, linesB), "its failing checks printed more lines"},
		{boolFirst(!a.x.o.Failed(), !b.x.o.Failed()), "its agent ended with an error"},
		{cmpInt(sizeA, sizeB), "its change was larger"},
		{cmpFloat(costA, costB), "it cost more"},
		{cmpInt(a.finished, b.finished), "it finished later"},
	}
	for _, rl := range rules {
		if rl.c != 0 {
			return comparison{rl.c, rl.rule}
		}
	}
	return comparison{0, "it finished later"}
}

// ranAll reports whether a candidate ran its agent and its checks to
// their end: not stopped, not refused, not interrupted.
func ranAll(o *roundOf) bool { return !o.stopped && !o.x.refused && o.x.rec.Interrupted == "" }

func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// costOf is what a candidate cost; an unknown cost ranks last.
func costOf(rec record) float64 {
	if rec.Cost == nil {
		return math.Inf(1)
	}
	return *rec.Cost
}

// passing is how many of the record's checks passed.
func (rec record) passing() int {
	n := 0
	for _, c := range rec.CheckResults {
		if c.Passed {
			n++
		}
	}
	return n
}

// failingLines counts the lines of output of a record's failing checks.
func failingLines(rec record) int {
	n := 0
	for _, c := range rec.CheckResults {
		if !c.Passed {
			n += strings.Count(strings.TrimRight(c.Output, "\n"), "\n") + 1
			if strings.TrimSpace(c.Output) == "" {
				n--
			}
		}
	}
	return n
}

// candidateRecord is a candidate as its record says it; why is why it was
// not kept ("" for the kept one, or before the round is ranked).
func candidateRecord(o *roundOf, why string) runlog.Candidate {
	rec := o.x.rec
	c := runlog.Candidate{
		N: o.c.k, Agent: o.x.slot.name, Model: o.x.slot.model, Why: why,
		Success: o.ok, ChecksPassed: rec.passing(), ChecksTotal: len(rec.CheckResults),
		FailingLines: failingLines(rec), DiffLines: o.size.Added + o.size.Deleted, DiffStat: rec.DiffStat,
		Cost: rec.Cost, Tokens: rec.Tokens, Duration: rec.Duration, TimedOut: rec.AgentTimedOut,
		Stopped: o.stopped, Error: rec.Error, SandboxDenied: rec.SandboxDenied,
		Transcript: filepath.ToSlash(candidateTranscript(rec.Iteration.Iteration, o.c.k)),
	}
	if o.ok {
		c.CompletionSignal = o.signal
	}
	for _, cr := range rec.CheckResults {
		if !cr.Passed {
			c.Failing = append(c.Failing, cr.Name)
		}
	}
	return c
}

// roundRecords are the round's candidates as recorded, by number, each
// loser with why it was not kept; kept is nil when none was (an
// interrupted round).
func roundRecords(ranked []*roundOf, kept *roundOf) []runlog.Candidate {
	out := make([]runlog.Candidate, len(ranked))
	for _, o := range ranked {
		why := "the round was interrupted"
		if kept != nil {
			why = ""
			if o != kept {
				why = lostWhy(o, kept)
			}
		}
		c := candidateRecord(o, why)
		c.Kept = o == kept
		out[o.c.k-1] = c
	}
	// A round that ran fewer candidates than the run has records those it ran.
	return slices.DeleteFunc(out, func(c runlog.Candidate) bool { return c.N == 0 })
}

// lostWhy says why o was not kept, against the kept candidate.
func lostWhy(o, kept *roundOf) string {
	switch {
	case o.stopped:
		return fmt.Sprintf("stopped: candidate %d succeeded first", kept.c.k)
	case o.x.refused:
		return "its agent was at its usage limit"
	}
	why := compareCandidates(kept, o).rule
	switch why {
	case "fewer of its checks passed":
		why = fmt.Sprintf("%d of %d checks passed, against %d for candidate %d", o.x.rec.passing(), len(o.x.rec.CheckResults), kept.x.rec.passing(), kept.c.k)
	case "its failing checks printed more lines":
		why = fmt.Sprintf("its failing checks printed %d lines, against %d for candidate %d", failingLines(o.x.rec), failingLines(kept.x.rec), kept.c.k)
	case "its change was larger":
		why = fmt.Sprintf("its change was larger: %d lines, against %d for candidate %d", o.size.Added+o.size.Deleted, kept.size.Added+kept.size.Deleted, kept.c.k)
	case "it cost more", "it finished later":
		why += fmt.Sprintf(" than candidate %d", kept.c.k)
	case "the kept candidate passed every check and declared completion":
		why = fmt.Sprintf("candidate %d passed every check and declared completion; this one did not", kept.c.k)
	}
	if e := o.x.rec.Error; e != nil && !o.ok {
		why += " (its agent: " + runlog.FirstLine(*e) + ")"
	}
	return why
}

// roundCost is the round's cost and tokens: every candidate's; the cost
// is unknown when one's is.
func roundCost(outs []*roundOf) (*float64, *runlog.Tokens) {
	var (
		sum     float64
		known   = true
		tokens  runlog.Tokens
		counted bool
	)
	for _, o := range outs {
		if c := o.x.rec.Cost; c != nil {
			sum += *c
		} else {
			known = false
		}
		if t := o.x.rec.Tokens; t != nil {
			tokens.Input += t.Input
			tokens.CachedInput += t.CachedInput
			tokens.Output += t.Output
			counted = true
		}
	}
	var cost *float64
	if known {
		cost = &sum
	}
	if !counted {
		return cost, nil
	}
	return cost, &tokens
}

// candidateTranscript is candidate k's folder in iteration i's, relative
// to the state folder.
func candidateTranscript(i, k int) string {
	return filepath.Join(runlog.TranscriptDir(i), "candidate-"+strconv.Itoa(k))
}

// keepCandidateDiff writes a candidate's change (against the round's
// base) in its transcript folder.
func (r *runner) keepCandidateDiff(ctx context.Context, i int, o *roundOf, base string) {
	if o.commit == "" {
		return
	}
	c, err := r.ws.repo.Between(ctx, base, o.commit, diffKeep)
	if err != nil {
		return
	}
	if err := runlog.WriteDiff(r.ws.state(candidateTranscript(i, o.c.k)), r.cleanText(runlog.CommitDiffText(c.Text, c.Truncated, o.commit))); err != nil {
		r.transcriptFailed(err)
	}
}

// roundEnd takes candidate x's worktree as its round left it, once every
// process of the round has ended (its agent's and its checks' process
// trees are gone when attempt returns): the tree it holds and every path
// the round touched, from the Changes that watched it since the round's
// base was checked out. That is what brings it to the next round's commit
// by what changed alone; when any of it is not known (no watcher, events
// lost, the index written by a git command of the round, the commit of
// its change failed), the next round resets it instead.
func (r *runner) roundEnd(ctx, runCtx context.Context, x *iteration) {
	c := x.cand
	ch := c.ch
	c.ch, c.end, c.noEnd = nil, nil, ""
	if ch == nil {
		c.noEnd = "its worktree was not watched"
		return
	}
	defer func() { _ = ch.Close() }()
	if c.changeFailed {
		c.noEnd = "the commit of its change failed"
		return
	}
	gctx, cancel := gitContext(ctx, runCtx)
	defer cancel()
	tree, _, err := ch.Tree(gctx, nil)
	if err != nil {
		c.noEnd = "the look at its worktree after its round failed: " + r.cleanText(err.Error())
		return
	}
	touched, complete := ch.Touched()
	if !complete {
		c.noEnd = "what its round touched is not all known (not watched, too many paths, or git wrote its index)"
		return
	}
	head := x.candCommit
	if head == "" {
		head = c.ws.initialRef // its agent's change was not committed: HEAD stayed at the base
	}
	c.end = &gitwt.CandidateEnd{Head: head, Tree: tree, Touched: touched}
}

// candidateChange commits what candidate x's agent left in its worktree
// (after the guards put back what they put back, before the checks, whose
// outputs stay out) on the round's base, and measures it against the base.
func (r *runner) candidateChange(ctx context.Context, x *iteration) {
	ch := x.cand.ch
	if ch == nil { // not watched: a look at the whole worktree
		ch = changes.New(ctx, x.ws.repo, x.ws.initialRef, x.ws.excludes, diffKeep, changes.ChangesOptions{Commits: true})
		defer func() { _ = ch.Close() }()
	}
	hash, _, err := ch.Commit(ctx, "architect: candidate "+strconv.Itoa(x.cand.k)+" of iteration "+strconv.Itoa(x.n), nil)
	if err == nil && hash == "" {
		hash = x.ws.initialRef // watched, nothing changed since the base
	}
	if err != nil {
		x.cand.changeFailed = true
		r.warn(fmt.Sprintf("iteration %d: could not record candidate %d's change: %s", x.n, x.cand.k, r.cleanText(err.Error())))
		return
	}
	x.candCommit = hash
	if c, err := x.ws.repo.Between(ctx, x.ws.initialRef, hash, 0); err == nil {
		x.candSize = c
		x.rec.Diff = &runlog.DiffSize{Files: c.Files, Added: c.Added, Deleted: c.Deleted}
	}
	if d, err := x.ws.repo.Output(ctx, "diff", "--stat", "--no-color", x.ws.initialRef, hash); err == nil {
		x.rec.DiffStat = r.deps.Redact(d)
	}
}

// lessonsOf is what the losing candidates of a round teach the next one
// (candidates_lessons on): each one's change and the first lines of its
// failing checks that the kept candidate's did not print.
func (r *runner) lessonsOf(losers []*roundOf, kept *roundOf) []prompt.CandidateLesson {
	if !r.cfg.CandidatesLessonsOn() {
		return nil
	}
	keptOut := map[string]string{}
	for _, c := range kept.x.rec.CheckResults {
		keptOut[c.Name] = c.Output
	}
	var out []prompt.CandidateLesson
	for _, o := range losers {
		if o.stopped || o.x.refused {
			continue
		}
		l := prompt.CandidateLesson{N: o.c.k, Agent: o.x.slot.Agent, Why: lostWhy(o, kept), DiffStat: o.x.rec.DiffStat}
		for idx, c := range o.x.rec.CheckResults {
			if c.Passed {
				continue
			}
			l.Failing = append(l.Failing, prompt.CheckFailure{Command: c.Name, Status: c.Status(),
				Output: prompt.NewLines(r.checkHead(o, idx, c.Output), keptOut[c.Name], 12)})
		}
		out = append(out, l)
	}
	return out
}

// carriedLessons are, for a resumed run, the lessons the last round that
// ran to its end left (its LessonsFile), when no iteration that ran to its
// end came after it: an interrupted or killed round (recorded by the
// resume) taught nothing, and its redo gets the prompt it had.
func (r *runner) carriedLessons() []prompt.CandidateLesson {
	if !r.cfg.CandidatesLessonsOn() {
		return nil
	}
	for i := len(r.records) - 1; i >= 0; i-- {
		rec := r.records[i]
		if rec.Interrupted != "" {
			continue
		}
		if !slices.ContainsFunc(rec.Candidates, func(c runlog.Candidate) bool { return c.Kept }) {
			return nil
		}
		ls, err := runlog.ReadLessons(r.ws.state(), rec.Iteration.Iteration)
		if err != nil {
			r.warn(fmt.Sprintf("what the losing candidates of iteration %d showed: %s", rec.Iteration.Iteration, err))
		}
		return lessonsOffDisk(ls)
	}
	return nil
}

// lessonsOnDisk are lessons as LessonsFile keeps them.
func lessonsOnDisk(ls []prompt.CandidateLesson) []runlog.Lesson {
	out := make([]runlog.Lesson, len(ls))
	for i, l := range ls {
		out[i] = runlog.Lesson{N: l.N, Agent: l.Agent, Why: l.Why, DiffStat: l.DiffStat}
		for _, f := range l.Failing {
			out[i].Failing = append(out[i].Failing, runlog.LessonCheck{Command: f.Command, Status: f.Status, Output: f.Output})
		}
	}
	return out
}

// lessonsOffDisk are lessons as LessonsFile kept them.
func lessonsOffDisk(ls []runlog.Lesson) []prompt.CandidateLesson {
	if len(ls) == 0 {
		return nil
	}
	out := make([]prompt.CandidateLesson, len(ls))
	for i, l := range ls {
		out[i] = prompt.CandidateLesson{N: l.N, Agent: l.Agent, Why: l.Why, DiffStat: l.DiffStat}
		for _, f := range l.Failing {
			out[i].Failing = append(out[i].Failing, prompt.CheckFailure{Command: f.Command, Status: f.Status, Output: f.Output})
		}
	}
	return out
}

// checkHead is the head of a candidate's check output, as its transcript
// kept it (the record keeps the tail); the record's when there is none.
func (r *runner) checkHead(o *roundOf, idx int, tail string) string {
	f, err := os.Open(r.ws.state(candidateTranscript(o.x.n, o.c.k), runlog.CheckFile(idx)))
	if err != nil {
		return tail
	}
	defer f.Close()
	buf := make([]byte, 16<<10)
	n, _ := io.ReadFull(f, buf)
	if n == 0 {
		return tail
	}
	return string(buf[:n])
}

// candidatesRemoval bounds the removal of the candidates' worktrees at the
// end of a run that was not asked to stop: a worktree of a large repository
// takes seconds to delete (100,000 files), far more than wrapUp.
const candidatesRemoval = 5 * time.Minute

// removeCandidates removes the run's candidates' worktrees, at its end:
// what they did is in the records. Candidate worktrees an earlier session
// of this workspace left registered (killed with more candidates than
// this one runs) go too.
func (r *runner) removeCandidates(ctx context.Context) {
	if r.ws.repo == nil {
		return
	}
	for _, c := range r.cands {
		if c.sb != r.sb {
			c.sb.Close()
		}
		if c.ch != nil {
			_ = c.ch.Close()
			c.ch = nil
		}
		if c.w != nil {
			_ = c.w.Close()
			c.w = nil
		}
		if err := r.ws.repo.RemoveCandidate(ctx, c.top); err != nil {
			r.warn(fmt.Sprintf("could not remove candidate %d's worktree %s: %s (`architect clean` removes it once the run has ended)", c.k, c.top, r.cleanText(err.Error())))
		}
	}
	if _, err := removeLeftCandidates(ctx, r.ws.repo, r.ws.dir, false); err != nil && ctx.Err() == nil {
		r.warn("could not remove the candidate worktrees an earlier session left: " + r.cleanText(err.Error()))
	}
	_ = os.Remove(r.ws.state(CandidatesDir))
}

// newCandidateChanges follows a candidate's worktree, just brought to the
// round's base, through the round: on its watcher w, so that the commit of
// what its agent left and the look after its checks cost what changed, and
// so that what the round touched is known; what w saw before (the
// worktree brought to base) is dropped. Clean: the worktree is the base as
// a checkout leaves it, with no untracked file git does not ignore.
// Without a watcher, each look is at the whole worktree.
func newCandidateChanges(ctx context.Context, ws *workspace, w *changes.Watcher) *changes.Changes {
	return changes.New(ctx, ws.repo, ws.initialRef, ws.excludes, diffKeep, changes.ChangesOptions{Commits: true, Clean: w != nil, Watcher: w})
}
