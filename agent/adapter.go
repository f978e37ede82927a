package agent

import (
	"context"
	"io"
	"slices"
	"time"
	// Usage-limit messages name their reset time in a zone ("resets 5pm
	// (Europe/Paris)"): embed the zone database so parsing them does not
	// depend on the machine having one.
	_ "time/tzdata"

	"github.com/architect-dev/architect/proc"
)

// A CLI adapter is three things: its command line, its stream parser and
// its table of error patterns (errtable.go). What they all do the same way
// lives here: run the CLI once (run), and build the Outcome (build).

// cliAdapter is what every CLI adapter is configured with; each adapter
// embeds it.
type cliAdapter struct {
	name   string   // the agent's name (--agent)
	bin    string   // the executable: Config.Bin or the CLI's usual name
	model  string   // Config.Model (Amp: its mode)
	args   []string // Config.Args, appended to the command line
	prices Prices
	now    func() time.Time
}

// newCLIAdapter configures the adapter of the agent name, whose usual
// executable the table of CLIs (clis.go) names.
func newCLIAdapter(c Config, name string) cliAdapter {
	bin := c.Bin
	if bin == "" {
		cli, _ := CLIFor(name)
		bin = cli.Bin
	}
	return cliAdapter{name: name, bin: bin, model: c.Model, args: slices.Clone(c.Args), prices: c.Prices, now: time.Now}
}

// Name implements Agent.
func (c cliAdapter) Name() string { return c.name }

// cmdline is a CLI's command line after the executable's name: its fixed
// arguments, the model flag when a model is given, then the user's extra
// arguments.
func cmdline(fixed []string, modelFlag, model string, extra []string) []string {
	args := slices.Clone(fixed)
	if model != "" {
		args = append(args, modelFlag, model)
	}
	return append(args, extra...)
}

// cliRun is how an adapter runs its CLI once.
type cliRun struct {
	args       []string
	env        []string                // nil: the request's environment
	line       func([]byte)            // each line of stdout
	maxLine    int                     // longer lines are cut (see proc.LineWriter); 0: 1 MiB
	longLine   func(head, tail []byte) // a line longer than maxLine, from both ends; may be nil
	stderrTail int                     // how much of stderr to keep for errors; 0: 4 KiB
	stderrLine func([]byte)            // each line of stderr too, may be nil
	toFile     string                  // stdout goes to a temporary file of this pattern (see runToFile); "": a pipe
	noStdin    bool                    // the prompt does not go on stdin
}

// run starts the CLI for req and waits for it: the process's result and
// the end of its stderr, cleaned of terminal escapes. Every line of stdout
// has been given to r.line when it returns.
func (c cliAdapter) run(ctx context.Context, req Request, r cliRun) (proc.Result, string) {
	if r.maxLine == 0 {
		r.maxLine = 1 << 20
	}
	if r.stderrTail == 0 {
		r.stderrTail = 4096
	}
	if r.env == nil {
		r.env = baseEnv(req.Env)
	}
	stdout := proc.NewLineWriter(r.maxLine, r.line)
	if r.longLine != nil {
		stdout.KeepTail(claudeLineTail, r.longLine)
	}
	tail := proc.NewTail(r.stderrTail)
	var stderr io.Writer = tail
	var stderrLines *proc.LineWriter
	if r.stderrLine != nil {
		stderrLines = proc.NewLineWriter(4096, r.stderrLine)
		stderr = io.MultiWriter(tail, stderrLines)
	}
	opt := req.options(r.env, stdout, stderr)
	if r.noStdin {
		opt.Stdin = nil
	}
	var res proc.Result
	if r.toFile != "" {
		res = runToFile(ctx, c.bin, r.args, opt, r.toFile)
	} else {
		res = proc.Run(ctx, c.bin, r.args, opt)
	}
	stdout.Flush()
	if stderrLines != nil {
		stderrLines.Flush()
	}
	return res, proc.Clean(tail.Bytes())
}

// build is the one outcome builder: the process's part (fromProc), the
// install hint when the CLI could not start, the figures the adapter read
// from its output, then, for a run that ended by itself, the adapter's
// reading of any failure (classify: the error, and its kind from the
// adapter's table). A run stopped by a timeout or the loop is not
// classified: fromProc said why it ended.
func build(res proc.Result, installHint string, figures, classify func(*Outcome)) Outcome {
	o := fromProc(res)
	if res.StartErr != nil {
		o.Hint = installHint
		return o
	}
	figures(&o)
	if o.ErrKind != ErrNone || o.Canceled {
		return o
	}
	classify(&o)
	return o
}
