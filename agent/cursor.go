package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/architect-dev/architect/proc"
)

const cursorInstallHint = "install the Cursor CLI (curl https://cursor.com/install -fsS | bash) or point --agent-bin at it"

// cursorStderrTail is how much of cursor-agent's stderr is kept: it prints
// its errors there, as plain text.
const cursorStderrTail = 8192

// cursor drives the Cursor CLI headless: one `cursor-agent -p
// --output-format stream-json` process per iteration, the prompt on stdin.
// Cursor reports tokens (recent versions) but no dollars: the cost comes
// from the price table, for the model given with --model.
type cursor struct{ cliAdapter }

// cursorArgs is the command line after the executable's name. --force
// allows commands unless explicitly denied; --trust trusts the workspace,
// without which a headless run in a directory Cursor has not seen (every
// new worktree) stops at a prompt. The prompt goes on stdin, which -p
// reads when no prompt argument is given: no argument-length limit.
func cursorArgs(model string, extra []string) []string {
	return cmdline([]string{"-p", "--output-format", "stream-json", "--force", "--trust"}, "--model", model, extra)
}

// CheckPrices implements PriceChecker.
func (a *cursor) CheckPrices() error {
	if a.model == "" || strings.EqualFold(a.model, "auto") {
		return errors.New("cursor-agent reports tokens, not dollars, and its default model (auto) has no price: set --model to a model with a price")
	}
	if !a.prices.Has(cursorPriceModel(a.model)) && !a.prices.Has(a.model) {
		return fmt.Errorf("cursor-agent reports tokens, not dollars, and no price is known for model %q", a.model)
	}
	return nil
}

func (a *cursor) Run(ctx context.Context, req Request) Outcome {
	s := &cursorStream{dir: req.Dir, onActivity: req.OnActivity}
	res, stderr := a.run(ctx, req, cliRun{args: cursorArgs(a.model, a.args), line: s.line, stderrTail: cursorStderrTail,
		toFile: "architect-cursor-*.jsonl"})
	return a.outcome(res, s, stderr)
}

// cursorStream reads cursor-agent's stream-json events: system init, user
// (the prompt echoed), assistant (one line per message between tool
// calls), tool_call started/completed, thinking, result; newer versions add
// retry, connection and interaction_query events. Tool results are never
// looked at.
type cursorStream struct {
	dir        string
	onActivity func(string)

	model     string // the model init names
	lastText  string // the last assistant message since the last tool call
	messages  int
	toolCalls int
	result    *cursorResult
	notes     notes // non-JSON stdout lines, for errors
}

type cursorResult struct {
	Subtype string `json:"subtype"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
	Error   string `json:"error"`
	Usage   *struct {
		Input      int64 `json:"inputTokens"`
		Output     int64 `json:"outputTokens"`
		CacheRead  int64 `json:"cacheReadTokens"`
		CacheWrite int64 `json:"cacheWriteTokens"`
	} `json:"usage"`
}

func (s *cursorStream) line(b []byte) {
	b = bytes.TrimSpace(b)
	if s.notes.plain(b) {
		return
	}
	f, complete := claudeFields(b)
	var typ, sub string
	if !claudeField(f, "type", &typ) {
		return
	}
	claudeField(f, "subtype", &sub)
	switch typ {
	case "system":
		if sub == "init" && claudeField(f, "model", &s.model) {
			s.activity("session started, model " + s.model)
		}
	case "assistant":
		var msg struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if !claudeField(f, "message", &msg) {
			return
		}
		var text strings.Builder
		for _, c := range msg.Content {
			if c.Type == "text" {
				text.WriteString(c.Text)
			}
		}
		if t := text.String(); strings.TrimSpace(t) != "" {
			s.messages++
			s.lastText = t
			s.activity(claudeFirstLine(t, 160))
		}
	case "tool_call":
		if sub != "started" {
			return
		}
		s.toolCalls++
		s.lastText = ""
		var call map[string]json.RawMessage
		if !claudeField(f, "tool_call", &call) {
			return
		}
		s.activity(cursorToolSummary(call, s.dir))
	case "retry", "connection":
		s.activity(typ + " " + sub)
	case "result":
		if !complete {
			return
		}
		var r cursorResult
		if json.Unmarshal(b, &r) == nil {
			s.result = &r
			status := "done"
			if r.IsError {
				status = "failed"
			}
			s.activity(fmt.Sprintf("%s after %d tool calls", status, s.toolCalls))
		}
	}
}

func (s *cursorStream) activity(msg string) {
	if s.onActivity != nil && msg != "" {
		s.onActivity(msg)
	}
}

// cursorToolSummary names a tool call ({"readToolCall":{"args":{…}}} →
// "read a.go") with its main argument.
func cursorToolSummary(call map[string]json.RawMessage, dir string) string {
	for key, raw := range call {
		name, ok := strings.CutSuffix(key, "ToolCall")
		if !ok {
			continue
		}
		var body struct {
			Args map[string]any `json:"args"`
		}
		_ = json.Unmarshal(raw, &body)
		arg := toolArg(body.Args, dir, "path", "command", "globPattern", "pattern", "query", "url", "targetDirectory")
		if arg == "" {
			return name
		}
		return name + " " + claudeFirstLine(arg, 120)
	}
	return "tool call"
}

// cursorFinal is the agent's final message: the last assistant message
// after the last tool call, or the result's text (which concatenates every
// message of the run) when there was none.
func (s *cursorStream) final() string {
	if s.result != nil && s.result.IsError {
		return ""
	}
	if s.lastText != "" {
		return s.lastText
	}
	if s.result != nil {
		return s.result.Result
	}
	return ""
}

// outcome turns a finished run into an Outcome.
func (a *cursor) outcome(res proc.Result, s *cursorStream, stderr string) Outcome {
	return build(res, cursorInstallHint, func(o *Outcome) { a.figures(o, s) }, func(o *Outcome) { a.classify(o, s, stderr) })
}

func (a *cursor) figures(o *Outcome, s *cursorStream) {
	o.FinalMessage = s.final()
	o.Steps = s.toolCalls
	if o.Steps == 0 && s.messages > 0 {
		o.Steps = 1
	}
	if r := s.result; r != nil && r.Usage != nil {
		u := r.Usage
		o.Usage = Usage{Input: u.Input + u.CacheWrite, CachedInput: u.CacheRead, Output: u.Output}
	}
	// Tokens × price when Cursor reported tokens and the model has a price;
	// unknown otherwise, never $0.
	if o.Usage != (Usage{}) {
		model := a.model
		if model == "" {
			model = s.model
		}
		o.Cost, o.CostKnown = a.prices.Cost(cursorPriceModel(model), o.Usage)
		if !o.CostKnown {
			o.Cost, o.CostKnown = a.prices.Cost(model, o.Usage)
		}
	}
}

var (
	// cursorCycleEnd is the reset date of Cursor's monthly usage limit:
	// "Your usage limits will reset when your monthly cycle ends on 11/17/2025."
	cursorCycleEnd = lazyRegexp(`(?i)reset when your monthly cycle ends on (\d{1,2})/(\d{1,2})/(\d{4})`)
)

// classify sets ErrKind, Err, Hint and ResetAt from the error result and
// cursor-agent's own messages (plain text on stderr or stdout); never from
// tool calls.
func (a *cursor) classify(o *Outcome, s *cursorStream, stderr string) {
	r := s.result
	notes := s.notes.String()
	all := stderr + "\n" + notes
	if r != nil && r.IsError {
		all = r.Error + "\n" + r.Result + "\n" + all
	}
	trust := containsFold(all, "workspace trust required")
	if r != nil && !r.IsError && o.ExitCode == 0 && !trust {
		return
	}
	text := ""
	if r != nil && r.IsError {
		text = strings.TrimSpace(r.Error + " " + r.Result)
	}
	text = cmp.Or(text, lastLines(strings.TrimSpace(stderr), 10), lastLines(strings.TrimSpace(notes), 10))
	o.Err = runErr("cursor-agent", capText(text, 2000), o.ExitCode, r != nil)
	f := failure{text: all, msg: text, now: a.now()}
	if trust {
		f.code = "architect:workspace-trust"
	}
	cursorErrors.apply(o, f)
}

var cursorErrors = errTable{
	{code: []string{"architect:workspace-trust"},
		kind: ErrFatal, hint: "cursor-agent wants the workspace trusted: check that --trust reached it (see --agent-arg), or run cursor-agent once in the directory"},
	{text: []string{"hit your usage limit", "usage limit reached", "free requests limit", "spend limit"},
		kind: ErrUsageLimit, reset: cursorReset},
	{text: []string{"cannot use this model", "invalid model", "model not found", "is not available or invalid", "not available on your plan"},
		kind: ErrFatal, hint: "check --model (cursor-agent --list-models lists the models your plan can use)"},
	{text: []string{"not logged in", "authentication required", "unauthorized", "invalid api key", "api key is invalid", "cursor-agent login", "please log in"},
		kind: ErrFatal, hint: "set CURSOR_API_KEY, or run cursor-agent login"},
	refusedArgs("cursor-agent refused its command line: check the flags given with --agent-arg (--trust needs a 2026 cursor-agent)"),
	outage,
}

// cursorReset is when Cursor's usage limit lifts: the day its monthly
// cycle ends, or Claude's wording of a reset time.
func cursorReset(f failure) Reset {
	if m := cursorCycleEnd().FindStringSubmatch(f.text); m != nil {
		if t, err := time.ParseInLocation("1/2/2006", m[1]+"/"+m[2]+"/"+m[3], time.Local); err == nil {
			return Reset{At: t, Within: 24 * time.Hour} // a date: the cycle ends that day
		}
		return Reset{}
	}
	_, r := claudeParseLimit(f.text, f.now)
	return r
}

var (
	// cursorEffort is a reasoning-effort or thinking suffix of a Cursor
	// model id: gpt-5.3-codex-high, claude-4.6-sonnet-medium-thinking.
	cursorEffort = lazyRegexp(`(?:-(?:thinking|none|minimal|low|medium|high|xhigh|extra-high|max))+$`)
	// cursorClaude is a Claude id in Cursor's spellings: sonnet-4.5,
	// opus-4.5, claude-4.6-sonnet, claude-4-sonnet.
	cursorClaude = lazyRegexp(`^(?:claude-)?(?:(opus|sonnet|haiku)-(\d+)(?:[.-](\d+))?|(\d+)(?:\.(\d+))?-(opus|sonnet|haiku))$`)
)

// cursorPriceModel maps a Cursor model id to the API id the price table
// knows: effort and thinking suffixes dropped, Claude names put in API
// order. Fast variants keep their suffix (they cost more) and so stay
// unpriced unless the user gives a price.
func cursorPriceModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.IndexByte(m, '['); i > 0 {
		m = m[:i]
	}
	m = cursorEffort().ReplaceAllString(m, "")
	if c := cursorClaude().FindStringSubmatch(m); c != nil {
		family, major, minor := c[1], c[2], c[3]
		if family == "" {
			family, major, minor = c[6], c[4], c[5]
		}
		m = "claude-" + family + "-" + major
		if minor != "" {
			m += "-" + minor
		}
	}
	return m
}
