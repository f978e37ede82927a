package loop

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/sandbox"
)

// refuseSandbox refuses, before anything is set up, a sandbox mode this
// system cannot enforce (sandbox.New says why and what to do).
func refuseSandbox(cfg config.Config) error {
	return sandbox.Check(cfg.Sandbox, cfg.SandboxNet)
}

// startSandbox sets up the run's sandbox for its workspace: the agents it
// may run (its own and its fallbacks) get their home folders. The line
// saying what is confined (or that nothing is) is said; the run's loop
// keeps it in the result.
func (r *runner) startSandbox() (*sandbox.Sandbox, error) {
	sb, err := sandbox.New(r.sandboxSettings(r.ws.dir))
	if err != nil {
		return nil, err
	}
	// Off when asked is said as a line; off when the system could not
	// confine (auto) is a warning.
	if sb.Mode() == sandbox.ModeOff && r.cfg.Sandbox != sandbox.ModeOff {
		r.warn(sb.Line())
	} else {
		r.logf("%s", sb.Line())
	}
	for _, m := range sb.Missing() {
		r.warn(m + " does not exist, so nothing is granted there: create it before the run, or fix the path")
	}
	return sb, nil
}

// sandboxSettings are the sandbox's settings for agents working in
// workspace: the run's, or a candidate's worktree.
func (r *runner) sandboxSettings(workspace string) sandbox.Settings {
	agents := []string{r.cfg.Agent}
	for _, f := range r.cfg.Fallback {
		name, _, _ := strings.Cut(f, ":")
		agents = append(agents, name)
	}
	for _, c := range r.cfg.CandidateAgents {
		agents = append(agents, c.Agent)
	}
	write := r.cfg.SandboxWrite
	if r.cacheRoot != "" {
		write = append(slices.Clip(write), r.cacheRoot) // the caches every worktree shares
	}
	return sandbox.Settings{
		Mode: r.cfg.Sandbox, Net: r.cfg.SandboxNet, Write: write, Read: r.cfg.SandboxRead,
		Workspace: workspace, Agents: agents,
		// Files are protected: by --protect, or files that define the
		// checks whole by --judge protect (the judge is found before).
		Protect: len(r.cfg.Protect) > 0 || len(r.readOnlyFiles(r.ws.dir, nil)) > 0,
	}
}

// boxOf is the sandbox of x's agent and checks: a candidate's own, or the
// run's.
func (r *runner) boxOf(x *iteration) *sandbox.Sandbox {
	if x.cand != nil && x.cand.sb != nil {
		return x.cand.sb
	}
	return r.sb
}

// candidateSandbox confines a candidate to its own worktree, as the run's
// sandbox confines the run's agent to the workspace: one candidate cannot
// write another's worktree, nor the run's workspace and records.
func (r *runner) candidateSandbox(top string) (*sandbox.Sandbox, error) {
	if r.sb == nil || r.sb.Mode() == sandbox.ModeOff {
		return r.sb, nil
	}
	s := r.sandboxSettings(top)
	s.Mode = r.sb.Mode() // what the run's sandbox applied, not auto again
	return sandbox.New(s)
}

// sandboxDeniedIn puts on the iteration's record, and says, what box
// (the run's sandbox or a candidate's) refused: denials read in the
// output, hosts the proxy refused.
func (r *runner) sandboxDeniedIn(box *sandbox.Sandbox, it *runlog.Iteration, denials []string) {
	who := ""
	for _, c := range r.cands {
		if c.sb == box && box != r.sb {
			who = "candidate " + strconv.Itoa(c.k) + ": "
		}
	}
	denials = append(denials, box.Refused()...)
	for _, d := range denials {
		if len(it.SandboxDenied) >= 20 {
			break
		}
		if !slices.Contains(it.SandboxDenied, d) {
			it.SandboxDenied = append(it.SandboxDenied, d)
			r.logf("iteration %d: %s%s", it.Iteration, who, r.deps.Redact(d))
		}
	}
}

// checkDenials reads the checks' output for denials.
func (r *runner) checkDenialsIn(box *sandbox.Sandbox, dir string, results []runlog.CheckResult) []string {
	var out []string
	for _, c := range results {
		if !c.Passed {
			out = append(out, box.Denials(dir, c.Output)...)
		}
	}
	return out
}

// teeOut is w, also writing to also; either may be nil.
func teeOut(w, also io.Writer) io.Writer {
	switch {
	case w == nil:
		return also
	case also == nil:
		return w
	}
	return io.MultiWriter(w, also)
}
