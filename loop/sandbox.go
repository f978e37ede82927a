package loop

import (
	"io"
	"slices"
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
	agents := []string{r.cfg.Agent}
	for _, f := range r.cfg.Fallback {
		name, _, _ := strings.Cut(f, ":")
		agents = append(agents, name)
	}
	sb, err := sandbox.New(sandbox.Settings{
		Mode: r.cfg.Sandbox, Net: r.cfg.SandboxNet, Write: r.cfg.SandboxWrite, Read: r.cfg.SandboxRead,
		Workspace: r.ws.dir, Agents: agents,
	})
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

// sandboxDenied puts on the iteration's record, and says, what the
// sandbox refused: denials read in the output, hosts the proxy refused.
func (r *runner) sandboxDenied(it *runlog.Iteration, denials []string) {
	denials = append(denials, r.sb.Refused()...)
	for _, d := range denials {
		if len(it.SandboxDenied) >= 20 {
			break
		}
		if !slices.Contains(it.SandboxDenied, d) {
			it.SandboxDenied = append(it.SandboxDenied, d)
			r.logf("iteration %d: %s", it.Iteration, r.deps.Redact(d))
		}
	}
}

// checkDenials reads the checks' output for denials.
func (r *runner) checkDenials(dir string, results []runlog.CheckResult) []string {
	var out []string
	for _, c := range results {
		if !c.Passed {
			out = append(out, r.sb.Denials(dir, c.Output)...)
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
