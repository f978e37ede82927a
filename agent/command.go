package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
)

// finalTail is how much of a command agent's stdout is kept, to show as its
// final message when it writes no result file. The completion tag and the
// done pattern are searched in the whole of it as it streams.
const finalTail = 4096

// activitySample is how often a line of the command agent's output is
// shown as its activity.
const activitySample = 100 * time.Millisecond

// maxResultFile bounds what is read of a command agent's result file.
const maxResultFile = 1 << 20

// resultPoll is how often the result file is read while the agent runs,
// for the cost it reports so far.
const resultPoll = 200 * time.Millisecond

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
// Besides its cost, steps and final message, a wrapper around a model's
// API can say why it failed, so that the loop treats it as it treats the
// CLI agents: error_kind usage_limit (waited out, or the next fallback
// agent), outage (retried, then the next fallback agent) or fatal (the run
// stops, with hint); reset_at (RFC 3339) or retry_after_seconds say when a
// usage limit lifts.
type commandResult struct {
	CostUSD      *float64 `json:"cost_usd"`
	Steps        int      `json:"steps"`
	FinalMessage *string  `json:"final_message"`

	Error      string   `json:"error"`
	ErrorKind  string   `json:"error_kind"`
	Hint       string   `json:"hint"`
	ResetAt    string   `json:"reset_at"`
	RetryAfter *float64 `json:"retry_after_seconds"`
}

// apply sets the error the agent reported on o; a kind architect does not
// know is reported as such, and the run counts as failed.
func (r *commandResult) apply(o *Outcome, now time.Time) {
	if r.ErrorKind == "" {
		return
	}
	msg := strings.TrimSpace(r.Error)
	if msg == "" {
		msg = "the agent reported " + r.ErrorKind
	}
	switch k := ErrorKind(r.ErrorKind); k {
	case ErrUsageLimit, ErrOutage, ErrFatal, ErrTransient:
		o.ErrKind, o.Err, o.Hint = k, msg, r.Hint
	default:
		o.ErrKind, o.Err = ErrTransient, fmt.Sprintf("%s (the result file's error_kind %q is none of usage_limit, outage, fatal, transient)", msg, r.ErrorKind)
		return
	}
	if o.ErrKind != ErrUsageLimit {
		return
	}
	if t, err := time.Parse(time.RFC3339, r.ResetAt); err == nil {
		o.setReset(exactReset(t))
	} else if r.RetryAfter != nil && *r.RetryAfter > 0 && *r.RetryAfter < 1e7 {
		o.setReset(exactReset(now.Add(time.Duration(*r.RetryAfter * float64(time.Second)))))
	}
}

func (a *command) Run(ctx context.Context, req Request) Outcome {
	// An empty file of architect's making, so that what the agent writes
	// there stays private (0600) unless it replaces the file.
	_ = os.Remove(req.ResultFile)
	if f, err := os.OpenFile(req.ResultFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
		f.Close()
	}
	env := append(baseEnv(req.Env),
		"ARCHITECT_PROMPT_FILE="+req.PromptFile,
		"ARCHITECT_RESULT_FILE="+req.ResultFile,
		"ARCHITECT_ITERATION="+strconv.Itoa(req.Iteration),
		"ARCHITECT_MAX_ITERATIONS="+strconv.Itoa(req.MaxIterations),
		"ARCHITECT_WORKSPACE="+req.Dir,
	)
	stdout := proc.NewTail(finalTail)
	stderr := proc.NewTail(finalTail)
	search := newFinalSearch(req)
	outs := []io.Writer{stdout, search}
	if req.OnActivity != nil {
		// Sampled, not split into lines: the agent's output is only shown,
		// and must cost next to nothing however much it prints.
		outs = append(outs, proc.NewLineSampler(activitySample, 512, func(line []byte) { req.OnActivity(string(line)) }))
	}
	stopPoll := pollResult(req)
	res := proc.Shell(ctx, a.script, req.options(env, io.MultiWriter(outs...), stderr))
	stopPoll()
	o := fromProc(res)
	o.FinalMessage = stdout.String()
	o.Searched = search.close()
	// Read, not removed: the caller removes it once it has kept the cost
	// (a kill in between must not lose it).
	if r, err := readCommandResult(req.ResultFile, false); err != nil {
		o.Err = joinErr(o.Err, err.Error())
	} else if r != nil {
		o.Steps = r.Steps
		if r.CostUSD != nil {
			o.Cost, o.CostKnown = *r.CostUSD, true
		}
		if r.FinalMessage != nil {
			// The agent's own word for its final message: the loop searches it.
			o.FinalMessage, o.Searched = *r.FinalMessage, nil
		}
		if o.ErrKind == ErrNone {
			r.apply(&o, time.Now())
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

// ReadCommandResult reads the result file a command agent left behind (an
// iteration architect did not see the end of): the cost it reported, if
// any. The caller removes the file once the cost is recorded: a kill
// before that finds it again.
func ReadCommandResult(path string) (cost float64, known bool, err error) {
	r, err := readCommandResult(path, false)
	if err != nil || r == nil || r.CostUSD == nil {
		return 0, false, err
	}
	return *r.CostUSD, true, nil
}

// readCommandResult reads the result file; nil when there is none or it is
// empty. With remove, the file is removed once read: it holds the agent's
// words unredacted.
func readCommandResult(path string, remove bool) (*commandResult, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if remove {
		defer os.Remove(path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxResultFile))
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var r commandResult
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("agent result file %s: %w (expected {\"cost_usd\": 0.01, \"steps\": 3, \"final_message\": \"…\"})", path, err)
	}
	return &r, nil
}

// pollResult reads the result file while the agent runs and reports each
// new cost it finds there to req.OnSpend, so that the cost of a run cut
// short (or of an architect killed) is known. A file caught half-written is
// read again at the next poll.
func pollResult(req Request) (stop func()) {
	if req.OnSpend == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(resultPoll)
		defer t.Stop()
		var seen time.Time
		var size int64
		last, reported := 0.0, false
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			fi, err := os.Stat(req.ResultFile)
			if err != nil || fi.ModTime().Equal(seen) && fi.Size() == size {
				continue
			}
			r, err := readCommandResult(req.ResultFile, false)
			if err != nil || r == nil || r.CostUSD == nil {
				continue
			}
			seen, size = fi.ModTime(), fi.Size()
			if !reported || *r.CostUSD != last {
				last, reported = *r.CostUSD, true
				req.OnSpend(Spend{Cost: last, CostKnown: true})
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// finalSearch searches a command agent's whole stdout, as it streams, for
// the completion tag and the done pattern.
type finalSearch struct {
	tag     *prompt.Detector
	pattern *patternSearch
}

func newFinalSearch(req Request) *finalSearch {
	s := &finalSearch{tag: prompt.NewDetector(req.CompletionTag, req.Prompt)}
	if req.DonePattern != "" {
		if re, err := regexp.Compile(req.DonePattern); err == nil {
			s.pattern = newPatternSearch(re)
		}
	}
	return s
}

func (s *finalSearch) Write(p []byte) (int, error) {
	s.tag.Write(p)
	if s.pattern != nil {
		// The pipe refuses only once its reader stopped, having found the
		// pattern: there is nothing more to look for.
		_, _ = s.pattern.Write(p)
	}
	return len(p), nil
}

func (s *finalSearch) close() *Searched {
	found := &Searched{Tag: s.tag.Found()}
	if s.pattern != nil {
		found.Pattern = s.pattern.close()
	}
	return found
}

// patternSearch runs a regular expression over a stream, in bounded memory
// (RE2 reads it as a rune stream), in a goroutine fed through a pipe.
type patternSearch struct {
	w     *io.PipeWriter
	found chan bool
}

func newPatternSearch(re *regexp.Regexp) *patternSearch {
	r, w := io.Pipe()
	s := &patternSearch{w: w, found: make(chan bool, 1)}
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		found := re.MatchReader(br)
		_, _ = io.Copy(io.Discard, br) // the rest, unread once a match is found
		s.found <- found
	}()
	return s
}

func (s *patternSearch) Write(p []byte) (int, error) { return s.w.Write(p) }

func (s *patternSearch) close() bool {
	s.w.Close()
	return <-s.found
}
