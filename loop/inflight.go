package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/runlog"
)

// errBudget is the cause given to an agent's context when its spending
// reaches --max-cost.
var errBudget = errors.New("max-cost reached")

// spendWatch follows the spending of an iteration's agent runs (one, or
// a round's candidates, each in its seat): it saves their sum in the
// inflight file, and stops the runs (errBudget) once that sum and the
// run's earlier iterations reach --max-cost.
type spendWatch struct {
	r      *runner
	cancel context.CancelCauseFunc
	before float64 // what the earlier iterations are known to have cost

	mu    sync.Mutex
	cur   runlog.Inflight
	spent []agent.Spend
	done  []*agent.Outcome
}

// spender is one agent run's seat in a spendWatch.
type spender interface {
	spend(agent.Spend)
	finished(agent.Outcome)
	lastSpend() agent.Spend
}

func (r *runner) startInflight(i int, began time.Time, cancel context.CancelCauseFunc, seats int) *spendWatch {
	w := &spendWatch{r: r, cancel: cancel, before: r.res.KnownCost, spent: make([]agent.Spend, seats), done: make([]*agent.Outcome, seats),
		cur: runlog.Inflight{Iteration: i, Agent: r.agent().name, Model: r.agent().model, StartedAt: stampNano(began), UpdatedAt: stampNano(began)}}
	w.save()
	return w
}

// seat is the spender of the k-th run (0-based).
func (w *spendWatch) seat(k int) spender { return seat{w, k} }

type seat struct {
	w *spendWatch
	k int
}

// spend is the agent's OnSpend; it runs on the adapter's goroutines.
func (s seat) spend(sp agent.Spend) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.spent[s.k] = sp
	w.sum()
	w.save()
	if budget := w.r.cfg.MaxCost; budget > 0 && w.cur.Cost != nil && w.before+*w.cur.Cost >= budget {
		w.cancel(errBudget)
	}
}

// finished saves an agent's outcome once it has ended, before the checks
// run: what it cost (a command agent's result file is read, and removed,
// only then) and how long it took.
func (s seat) finished(o agent.Outcome) {
	w := s.w
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done[s.k] = &o
	w.sum()
	w.cur.AgentDuration = ptr(o.Duration.Seconds())
	w.save()
}

// lastSpend is the last spending the agent reported.
func (s seat) lastSpend() agent.Spend {
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.spent[s.k]
}

// sum puts the runs' spending so far in the inflight record: each run's
// outcome once it ended, else what it last reported. The cost is known
// when one run's is (a kill then keeps at least that).
func (w *spendWatch) sum() {
	w.cur.UpdatedAt = stampNano(w.r.deps.Now())
	var (
		cost   float64
		known  bool
		tokens runlog.Tokens
	)
	for k, sp := range w.spent {
		c, ck, u := sp.Cost, sp.CostKnown, sp.Usage
		if o := w.done[k]; o != nil {
			if o.CostKnown {
				c, ck = o.Cost, true
			}
			if o.Usage != (agent.Usage{}) {
				u = o.Usage
			}
		}
		if ck {
			cost, known = cost+c, true
		}
		tokens.Input += u.Input
		tokens.CachedInput += u.CachedInput
		tokens.Output += u.Output
	}
	w.cur.Cost = nil
	if known {
		w.cur.Cost = ptr(cost)
	}
	w.cur.Tokens = nil
	if tokens != (runlog.Tokens{}) {
		w.cur.Tokens = &tokens
	}
}

func (w *spendWatch) save() {
	if err := runlog.WriteJSONQuick(w.r.ws.state(runlog.InflightFile), w.cur); err != nil {
		w.r.warn("could not save the running iteration's progress: " + err.Error())
	}
}

// done removes the inflight file once the iteration is recorded.
func (w *workspace) inflightDone() { _ = os.Remove(w.state(runlog.InflightFile)) }

// recordKilled records, for Resume, the iteration a killed run was in the
// middle of: interrupted (killed), with what its agent had spent (the cost
// the agent last reported, or a command agent's result file left behind),
// how long it is known to have run, and the changes it left. Its checks
// did not run. Nothing happens when no iteration was running, or when it
// was recorded before the kill.
func (r *runner) recordKilled(ctx context.Context) error {
	path := r.ws.state(runlog.InflightFile)
	f := runlog.ReadInflight(path)
	if f == nil || f.Iteration != len(r.records)+1 {
		_ = os.Remove(path)
		return nil
	}
	it := runlog.Iteration{Iteration: f.Iteration, Agent: f.Agent, Model: f.Model, StartedAt: f.StartedAt, CheckResults: []runlog.CheckResult{},
		Interrupted: runlog.InterruptKilled, Tokens: f.Tokens}
	it.Cost = f.Cost
	results := r.killedResults()
	if c, ok, err := agent.ReadCommandResult(r.ws.state(runlog.AgentResultFile)); err != nil {
		r.warn("the killed iteration's result file: " + err.Error())
	} else if ok {
		it.Cost = &c
	}
	// A killed round's candidates that had not ended: what their result
	// files say comes on top of what the inflight file summed (the ones
	// that had ended).
	for _, p := range results {
		if c, ok, err := agent.ReadCommandResult(p); err == nil && ok {
			it.Cost = ptr(c + costOr0(it.Cost))
		}
	}
	began, err1 := time.Parse(time.RFC3339Nano, f.StartedAt)
	seen, err2 := time.Parse(time.RFC3339Nano, f.UpdatedAt)
	if err1 == nil && err2 == nil && seen.After(began) {
		it.AgentDuration = seen.Sub(began).Seconds()
		it.Duration = it.AgentDuration
	}
	if f.AgentDuration != nil {
		it.AgentDuration = *f.AgentDuration // the agent had finished; the checks were running
	}
	it.StartedAt = stamp(began)
	e := "architect was killed during this iteration; its checks did not run"
	it.Error = &e
	rec := record{Record: runlog.Record{Iteration: it}}
	if r.ws.repo != nil {
		if d, err := r.ws.diff(ctx); err == nil {
			rec.Tree, rec.DiffStat = d.Tree, r.deps.Redact(d.Stat)
		}
	}
	if err := runlog.AppendRecord(r.ws.state(runlog.RecordsFile), rec.Record); err != nil {
		return fmt.Errorf("recording iteration %d, interrupted when architect was killed: %w", f.Iteration, err)
	}
	r.records = append(r.records, rec)
	_ = os.Remove(path)
	// Their costs are recorded: the agents' words go.
	for _, p := range append(results, r.ws.state(runlog.AgentResultFile)) {
		_ = os.Remove(p)
	}
	r.logf("iteration %d was interrupted when architect was killed: recorded (cost %s), its checks did not run", f.Iteration, costOfIteration(it))
	r.logEvent("FAIL", "iteration %d interrupted: architect was killed", f.Iteration)
	return nil
}

// killedResults are the result files a killed round's candidates left in
// their worktrees.
func (r *runner) killedResults() []string {
	sub := "."
	if r.ws.repo != nil {
		sub = relDir(r.ws.repo.Dir(), r.ws.dir)
	}
	found, _ := filepath.Glob(filepath.Join(r.ws.state(CandidatesDir), "*", sub, runlog.StateDir, runlog.AgentResultFile))
	return found
}

func costOr0(c *float64) float64 {
	if c == nil {
		return 0
	}
	return *c
}

func costOfIteration(it runlog.Iteration) string {
	if it.Cost == nil {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", *it.Cost)
}

func stampNano(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
