package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/architect-dev/architect/proc"
)

// codexMaxLine bounds one line of Codex's JSONL output held in memory. An
// item line carries a whole agent message or a command's output, so it is
// generous; a longer line is cut and not parsed (see codexStream.line).
const codexMaxLine = 1 << 20

// codexStderrTail is how much of Codex's stderr is kept, for the error of
// a run that ends without a structured error.
const codexStderrTail = 4096

const (
	codexInstallHint = "install Codex (npm install -g @openai/codex) or point --agent-bin at it"
	codexAuthHint    = "check the credentials Codex uses: set OPENAI_API_KEY (or CODEX_API_KEY), or run `codex login`"
	codexModelHint   = "check --model: give a model your Codex account can use (e.g. --model gpt-5.5)"
	codexPlanHint    = "the ChatGPT plan Codex is logged in with does not include Codex: upgrade it, or use an API key (OPENAI_API_KEY)"
)

// codex drives OpenAI Codex headless: one `codex exec --json` process per
// iteration (never resumed), the prompt on stdin, its JSONL events parsed
// as they arrive. Codex reports tokens, not dollars: the cost is the
// tokens times the price of the model given with --model.
type codex struct{ cliAdapter }

func newCodex(c Config) (Agent, error) {
	return &codex{newCLIAdapter(c, "codex")}, nil
}

func (a *codex) Name() string { return "codex" }

// CheckPrices reports a model whose cost cannot be known: see
// checkTokenPrices.
func (a *codex) CheckPrices() error {
	return checkTokenPrices("codex", "Codex", a.model, a.prices, "gpt-5.5")
}

// codexArgs is the command line after the executable's name: full
// permissions, no sandbox, no git-repository check (the workspace may be a
// worktree or a plain folder), then the user's extra arguments, and "-" so
// that the prompt is read from stdin whatever its size.
func codexArgs(model string, extra []string) []string {
	args := []string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check"}
	if model != "" {
		args = append(args, "-m", model)
	}
	args = append(args, extra...)
	return append(args, "-")
}

func (a *codex) Run(ctx context.Context, req Request) Outcome {
	s := &codexStream{dir: req.Dir, onActivity: req.OnActivity}
	if req.OnSpend != nil {
		s.onTurn = func() {
			c, ok := a.prices.Cost(a.model, s.usage)
			req.OnSpend(Spend{Usage: s.usage, Cost: c, CostKnown: ok})
		}
	}
	stdout := proc.NewLineWriter(codexMaxLine, s.line)
	stderr := proc.NewTail(codexStderrTail)
	env := baseEnv(req.Env)
	res := proc.Run(ctx, a.bin, codexArgs(a.model, a.args), req.options(env, stdout, stderr))
	stdout.Flush()
	return a.outcome(res, s, proc.Clean(stderr.Bytes()), envLocation(env))
}

// outcome turns a finished run into an Outcome. loc is the time zone Codex
// wrote reset times in.
func (a *codex) outcome(res proc.Result, s *codexStream, stderr string, loc *time.Location) Outcome {
	o := fromProc(res)
	if res.StartErr != nil {
		o.Hint = codexInstallHint
		return o
	}
	o.FinalMessage = s.final
	o.Steps = s.steps
	o.Usage = s.usage
	switch {
	case s.sawUsage:
		o.Cost, o.CostKnown = a.prices.Cost(a.model, o.Usage)
	case s.turnFailed != "" && !s.answered:
		// The first request failed: nothing was generated, nothing billed.
		o.CostKnown = true
	}
	if o.ErrKind != ErrNone || o.Canceled {
		// Timed out, inactive or cancelled: fromProc said it; add what
		// Codex last complained about (e.g. waiting for the network).
		if msg := s.lastError(); msg != "" && o.ErrKind != ErrNone {
			o.Err += "; codex: " + msg
		}
		return o
	}
	a.classify(&o, s, stderr, loc)
	return o
}

// classify sets ErrKind, Err, Hint and ResetAt from Codex's structured
// errors only (turn.failed, then error events), or from its stderr when it
// printed none; never from command output or messages.
func (a *codex) classify(o *Outcome, s *codexStream, stderr string, loc *time.Location) {
	if s.turnFailed == "" && o.ExitCode == 0 {
		return
	}
	text := s.turnFailed
	if text == "" {
		text = s.lastError()
	}
	if text == "" {
		text = lastLines(strings.TrimSpace(stderr), 10)
	}
	if text == "" {
		o.Err = fmt.Sprintf("codex exited with status %d without an error message", o.ExitCode)
	} else {
		o.Err = "codex: " + text
	}
	o.ErrKind, o.Hint, o.ResetAt = codexClassify(text, a.now().In(loc))
}

// codexClassify sorts one of Codex's error messages (as observed with
// 0.169.0 against HTTP errors; see testdata/codex) into an ErrorKind, with
// a hint for fatal errors and the reset time of a usage limit when the
// message gives one. now is in the time zone Codex printed times in.
func codexClassify(text string, now time.Time) (ErrorKind, string, time.Time) {
	l := strings.ToLower(text)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(l, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("upgrade to plus", "usage_not_included"):
		return ErrFatal, codexPlanHint, time.Time{}
	case has("usage limit", "quota exceeded", "insufficient_quota", "exceeded your current quota",
		"last status: 429", "429 too many requests", "out of credits", "spend cap", "usage_limit_reached"):
		return ErrUsageLimit, "", codexResetAt(text, now)
	case has("missing environment variable"):
		return ErrFatal, "set the environment variable Codex names (the API key its model provider reads), " +
			"e.g. OPENAI_API_KEY, or run `codex login`", time.Time{}
	case has("status 401", "status 403", "unauthorized", "forbidden", "invalid_api_key", "incorrect api key",
		"no codex credentials", "not logged in", "codex login", "refresh token", "access blocked"):
		return ErrFatal, codexAuthHint, time.Time{}
	case has("status 404", "model_not_found", "does not exist or you do not have access", "model is not supported",
		"unsupported model", "unknown model", `"param":"model"`):
		return ErrFatal, codexModelHint, time.Time{}
	}
	return ErrTransient, "", time.Time{}
}

// codexStream follows Codex's JSONL events. Only the structured events
// are used for errors; command output is never looked at.
type codexStream struct {
	dir        string
	onActivity func(string)
	onTurn     func() // after each turn's usage, may be nil

	final      string // the last agent_message
	steps      int    // completed tool items (commands, patches, MCP calls, searches)
	answered   bool   // some item arrived: the model answered at least once
	usage      Usage
	sawUsage   bool
	turnFailed string // the message of a turn.failed event
	errorMsg   string // the last error event's message
}

// codexEvent is one JSONL line of `codex exec --json`; unknown fields and
// types are ignored.
type codexEvent struct {
	Type    string     `json:"type"`
	Message string     `json:"message"` // error
	Item    *codexItem `json:"item"`    // item.started, item.updated, item.completed
	Usage   *struct {
		InputTokens       int64 `json:"input_tokens"` // includes the cached ones
		CachedInputTokens int64 `json:"cached_input_tokens"`
		OutputTokens      int64 `json:"output_tokens"` // includes reasoning
	} `json:"usage"` // turn.completed
	Error *struct {
		Message string `json:"message"`
	} `json:"error"` // turn.failed
}

type codexItem struct {
	Type     string `json:"type"`
	Text     string `json:"text"`    // agent_message, reasoning
	Command  string `json:"command"` // command_execution
	Message  string `json:"message"` // error
	Server   string `json:"server"`  // mcp_tool_call
	Tool     string `json:"tool"`    // mcp_tool_call
	Query    string `json:"query"`   // web_search
	ExitCode *int   `json:"exit_code"`
	Changes  []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"` // file_change
}

// codexNotSteps are the item types that are not tool calls.
var codexNotSteps = []string{"agent_message", "reasoning", "todo_list", "error", ""}

// line handles one line of output.
func (s *codexStream) line(b []byte) {
	ev, ok := codexParse(b)
	if !ok {
		if bytes.Contains(b, []byte(`"agent_message"`)) {
			// A final message too long to keep: do not let an earlier
			// message stand for it.
			s.final = ""
		}
		return
	}
	switch ev.Type {
	case "item.started":
		if it := ev.Item; it != nil {
			switch it.Type {
			case "command_execution":
				s.activity("run: " + codexCommand(it.Command))
			case "mcp_tool_call":
				s.activity("tool: " + it.Server + "." + it.Tool)
			}
		}
	case "item.completed":
		if ev.Item != nil {
			s.item(ev.Item)
		}
	case "turn.completed":
		if u := ev.Usage; u != nil {
			in, cached, out := max(u.InputTokens, 0), max(u.CachedInputTokens, 0), max(u.OutputTokens, 0)
			cached = min(cached, in)
			s.usage.Input += in - cached
			s.usage.CachedInput += cached
			s.usage.Output += out
			s.sawUsage = true
			if s.onTurn != nil {
				s.onTurn()
			}
		}
	case "turn.failed":
		msg := "the turn failed"
		if ev.Error != nil && strings.TrimSpace(ev.Error.Message) != "" {
			msg = strings.TrimSpace(ev.Error.Message)
		}
		s.turnFailed = msg
		s.activity("error: " + msg)
	case "error":
		if msg := strings.TrimSpace(ev.Message); msg != "" {
			s.errorMsg = msg
			s.activity("error: " + msg)
		}
	}
}

func (s *codexStream) item(it *codexItem) {
	s.answered = true
	if !slices.Contains(codexNotSteps, it.Type) {
		s.steps++
	}
	switch it.Type {
	case "agent_message":
		s.final = it.Text
		s.activity("message: " + it.Text)
	case "file_change":
		var parts []string
		for _, c := range it.Changes {
			parts = append(parts, strings.TrimSpace(c.Kind+" "+relPath(s.dir, c.Path)))
		}
		s.activity("patch: " + strings.Join(parts, ", "))
	case "command_execution":
		if it.ExitCode != nil && *it.ExitCode != 0 {
			s.activity(fmt.Sprintf("exit %d: %s", *it.ExitCode, codexCommand(it.Command)))
		}
	case "web_search":
		s.activity("search: " + it.Query)
	case "error":
		s.activity("warning: " + it.Message)
	}
}

func (s *codexStream) activity(msg string) {
	if s.onActivity != nil {
		s.onActivity(shortActivity(msg))
	}
}

// lastError is the last error Codex reported, turn.failed first.
func (s *codexStream) lastError() string {
	if s.turnFailed != "" {
		return s.turnFailed
	}
	return s.errorMsg
}

// codexCommand strips the shell Codex wraps commands in
// (/bin/bash -lc 'cmd') for display.
func codexCommand(cmd string) string {
	for _, sh := range []string{"/bin/bash -lc ", "bash -lc ", "/bin/sh -c ", "sh -c ", "/bin/zsh -lc "} {
		if rest, ok := strings.CutPrefix(cmd, sh); ok {
			if len(rest) >= 2 && rest[0] == '\'' && rest[len(rest)-1] == '\'' && !strings.Contains(rest[1:len(rest)-1], "'") {
				return rest[1 : len(rest)-1]
			}
			if u, err := strconv.Unquote(rest); err == nil && strings.HasPrefix(rest, `"`) {
				return u
			}
			return rest
		}
	}
	return cmd
}

// envLocation is the time zone a child with environment env prints local
// times in: its TZ, else architect's own.
func envLocation(env []string) *time.Location {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "TZ="); ok {
			v = strings.TrimPrefix(v, ":")
			if v == "" {
				return time.UTC
			}
			if loc, err := time.LoadLocation(v); err == nil {
				return loc
			}
			if strings.HasPrefix(v, "/") {
				if b, err := os.ReadFile(v); err == nil {
					if loc, err := time.LoadLocationFromTZData(v, b); err == nil {
						return loc
					}
				}
			}
			return time.Local
		}
	}
	return time.Local
}

// codexParse decodes one output line; ok is false for anything that is
// not a complete JSON event (a cut line, a stray warning).
func codexParse(b []byte) (ev codexEvent, ok bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return ev, false
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return codexEvent{}, false
	}
	return ev, true
}

// codexTryAgainAt matches the reset time in Codex's usage-limit message:
// "Try again at 5:46 PM." (today) or "try again at Mar 17th, 2030 5:46 PM."
var codexTryAgainAt = lazyRegexp(`(?i)try again at (?:([A-Z][a-z]{2}) (\d{1,2})(?:st|nd|rd|th)?, (\d{4}) )?(\d{1,2}):(\d{2}) ?([AP]M)`)

// codexResetAt reads when a usage limit lifts from Codex's message, in
// now's time zone; zero when the message does not say.
func codexResetAt(text string, now time.Time) time.Time {
	m := codexTryAgainAt().FindStringSubmatch(text)
	if m == nil {
		if d, ok := retryDelay(text); ok {
			return now.Add(d)
		}
		return time.Time{}
	}
	hour, _ := strconv.Atoi(m[4])
	minute, _ := strconv.Atoi(m[5])
	if hour < 1 || hour > 12 || minute > 59 {
		return time.Time{}
	}
	hour %= 12
	if strings.EqualFold(m[6], "PM") {
		hour += 12
	}
	if m[1] == "" {
		t := time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, now.Location())
		if t.Before(now.Add(-time.Minute)) {
			t = t.AddDate(0, 0, 1) // printed as a time of day: the next one
		}
		return t
	}
	month, err := time.Parse("Jan", strings.ToUpper(m[1][:1])+strings.ToLower(m[1][1:]))
	if err != nil {
		return time.Time{}
	}
	day, _ := strconv.Atoi(m[2])
	year, _ := strconv.Atoi(m[3])
	if day < 1 || day > 31 {
		return time.Time{}
	}
	return time.Date(year, month.Month(), day, hour, minute, 0, 0, now.Location())
}

// Helpers shared with the gemini adapter, whose cost also comes from the
// price table.

// checkTokenPrices is CheckPrices for an agent that reports tokens only:
// the cost of a run is known only when the model is named (the CLI's own
// default model is chosen by its configuration, out of architect's sight)
// and has a price, built in or in ralph.yaml.
func checkTokenPrices(agent, cli, model string, p Prices, example string) error {
	if model == "" {
		return fmt.Errorf("%s reports tokens, not dollars, and without --model architect cannot tell which model's price applies "+
			"(%s picks its default from its own configuration): pass --model (e.g. --model %s) and, "+
			"unless its price is built in, add it under prices in ralph.yaml", agent, cli, example)
	}
	if p.Has(model) {
		return nil
	}
	return fmt.Errorf("%s reports tokens, not dollars, and architect has no price for model %q: add it to ralph.yaml as "+
		"prices: {%q: {input: N, cached_input: N, output: N}} (USD per million tokens)", agent, model, model)
}

// retryIn matches a delay given in an error message: "try again in 2.5s",
// "Please retry in 37.5s", "Suggested retry after 37s.", "retry after 2m".
var retryIn = lazyRegexp(`(?i)(?:try again in|retry in|retry after)\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?|m|mins?|minutes?|h|hours?)\b`)

// retryDelay reads a delay from an error message.
func retryDelay(text string) (time.Duration, bool) {
	m := retryIn().FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || v < 0 || v > 1e7 {
		return 0, false
	}
	unit := time.Second
	switch u := strings.ToLower(m[2]); {
	case u == "ms":
		unit = time.Millisecond
	case u == "h" || strings.HasPrefix(u, "hour"):
		unit = time.Hour
	case u == "m" || strings.HasPrefix(u, "min"):
		unit = time.Minute
	}
	return time.Duration(v * float64(unit)), true
}

// shortActivity makes msg one line of at most 200 characters.
func shortActivity(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if utf8.RuneCountInString(msg) > 200 {
		r := []rune(msg)
		msg = string(r[:199]) + "…"
	}
	return msg
}

// relPath shows p relative to dir when it is inside it.
func relPath(dir, p string) string {
	if dir == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(dir, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return r
	}
	return p
}
