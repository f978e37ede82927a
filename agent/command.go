package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/proc"
)

// finalTail is how much of a command agent's stdout stands for its final
// message when it writes no result file.
const finalTail = 4096

// activitySample is how often a line of the command agent's output is
// shown as its activity.
const activitySample = 100 * time.Millisecond

// maxResultFile bounds what is read of a command agent's result file.
const maxResultFile = 1 << 20

// command is the generic agent: any shell command, the prompt on stdin.
type command struct {
	script string
}

func newCommand(c Config) (Agent, error) {
	if strings.TrimSpace(c.Cmd) == "" {
		return nil, errors.New("the command agent needs a command: set --agent-cmd 'CMD' (or agent_cmd in the config file)")
	}
	return &command{script: c.Cmd}, nil
}

func (a *command) Name() string { return "command" }

// commandResult is what a command agent may write to ARCHITECT_RESULT_FILE.
type commandResult struct {
	CostUSD      *float64 `json:"cost_usd"`
	Steps        int      `json:"steps"`
	FinalMessage *string  `json:"final_message"`
}

func (a *command) Run(ctx context.Context, req Request) Outcome {
	_ = os.Remove(req.ResultFile)
	env := append(baseEnv(req.Env),
		"ARCHITECT_PROMPT_FILE="+req.PromptFile,
		"ARCHITECT_RESULT_FILE="+req.ResultFile,
		"ARCHITECT_ITERATION="+strconv.Itoa(req.Iteration),
		"ARCHITECT_MAX_ITERATIONS="+strconv.Itoa(req.MaxIterations),
		"ARCHITECT_WORKSPACE="+req.Dir,
	)
	stdout := proc.NewTail(finalTail)
	stderr := proc.NewTail(finalTail)
	var out io.Writer = stdout
	if req.OnActivity != nil {
		// Sampled, not split into lines: the agent's output is only shown,
		// and must cost next to nothing however much it prints.
		lines := proc.NewLineSampler(activitySample, 512, func(line []byte) { req.OnActivity(string(line)) })
		out = io.MultiWriter(stdout, lines)
	}
	res := proc.Shell(ctx, a.script, req.options(env, out, stderr))
	o := fromProc(res)
	o.FinalMessage = stdout.String()
	if r, err := readCommandResult(req.ResultFile); err != nil {
		o.Err = joinErr(o.Err, err.Error())
	} else if r != nil {
		o.Steps = r.Steps
		if r.CostUSD != nil {
			o.Cost, o.CostKnown = *r.CostUSD, true
		}
		if r.FinalMessage != nil {
			o.FinalMessage = *r.FinalMessage
		}
	}
	switch o.ExitCode {
	case 126, 127: // sh: found but not executable / command not found
		if o.ErrKind == ErrNone {
			o.ErrKind = ErrFatal
			o.Err = fmt.Sprintf("the agent command could not run (exit status %d): %s", o.ExitCode, lastLines(strings.TrimSpace(stderr.String()), 5))
			o.Hint = "check --agent-cmd: the program must exist on PATH and be executable"
		}
	}
	if o.ErrKind == ErrNone && o.ExitCode != 0 && o.ExitCode != ExitWaiting {
		o.ErrKind = ErrTransient
		o.Err = joinErr(o.Err, fmt.Sprintf("agent command exited with status %d", o.ExitCode))
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			o.Err += ": " + lastLines(tail, 20)
		}
	}
	return o
}

func readCommandResult(path string) (*commandResult, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read once, then removed: it holds the agent's words unredacted.
	defer os.Remove(path)
	var r commandResult
	if err := json.NewDecoder(io.LimitReader(f, maxResultFile)).Decode(&r); err != nil {
		return nil, fmt.Errorf("agent result file %s: %v (expected {\"cost_usd\": 0.01, \"steps\": 3, \"final_message\": \"…\"})", path, err)
	}
	return &r, nil
}
