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
	codexBillingHint = "the OpenAI account has no credit left or reached its spending limit: add credit (platform.openai.com, Billing), or use another key"
)

// codex drives OpenAI Codex headless: one `codex exec --json` process per
// iteration (never resumed), the prompt on stdin, its JSONL events parsed
// as they arrive. Codex reports tokens, not dollars: the cost is the
// tokens times the price of the model given with --model.
type codex struct{ cliAdapter }

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
	args := cmdline([]string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check"}, "-m", model, extra)
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
	env := baseEnv(req.Env)
	res, stderr := a.run(ctx, req, cliRun{args: codexArgs(a.model, a.args), env: env, line: s.line,
		maxLine: codexMaxLine, stderrTail: codexStderrTail})
	return a.outcome(res, s, stderr, envLocation(env))
}

// outcome turns a finished run into an Outcome. loc is the time zone Codex
// wrote reset times in.
func (a *codex) outcome(res proc.Result, s *codexStream, stderr string, loc *time.Location) Outcome {
	return build(res, codexInstallHint, func(o *Outcome) { a.figures(o, s) }, func(o *Outcome) { a.classify(o, s, stderr, loc) })
}

func (a *codex) figures(o *Outcome, s *codexStream) {
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
	// Timed out or inactive: fromProc said it; add what Codex last
	// complained about (e.g. waiting for the network).
	if msg := s.lastError(); msg != "" && o.ErrKind != ErrNone {
		o.Err += "; codex: " + msg
	}
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
	var reset Reset
	o.ErrKind, o.Hint, reset = codexClassify(text, a.now().In(loc))
	o.setReset(reset)
}

// codexClassify sorts one of Codex's error messages (as observed with
// 0.169.0 against HTTP errors; see testdata/codex) into an ErrorKind, with
// a hint for fatal errors and the reset time of a usage limit when the
// message gives one. now is in the time zone Codex printed times in.
//
// A plan's usage limit and a rate limit (429) are waited out; an API
// account out of credit ("Quota exceeded. Check your plan and billing
// details.": insufficient_quota) is billing, which waiting does not fix:
// fatal, with a hint.
func codexClassify(text string, now time.Time) (ErrorKind, string, Reset) {
	return codexErrors.classify(failure{text: text, msg: text, status: codexStatus(text), now: now})
}

var codexErrors = errTable{
	{text: []string{"upgrade to plus", "usage_not_included"}, kind: ErrFatal, hint: codexPlanHint},
	{text: []string{"quota exceeded", "insufficient_quota", "exceeded your current quota", "out of credits", "spend cap", "billing"},
		kind: ErrFatal, hint: codexBillingHint},
	{text: []string{"usage limit", "last status: 429", "429 too many requests", "usage_limit_reached", "rate limit"},
		kind: ErrUsageLimit, reset: func(f failure) Reset { return codexResetAt(f.text, f.now) }},
	{text: []string{"missing environment variable"}, kind: ErrFatal,
		hint: "set the environment variable Codex names (the API key its model provider reads), e.g. OPENAI_API_KEY, or run `codex login`"},
	{text: []string{"status 401", "status 403", "unauthorized", "forbidden", "invalid_api_key", "incorrect api key",
		"no codex credentials", "not logged in", "codex login", "refresh token", "access blocked"},
		kind: ErrFatal, hint: codexAuthHint},
	{text: []string{"status 404", "model_not_found", "does not exist or you do not have access", "model is not supported",
		"unsupported model", "unknown model", `"param":"model"`},
		kind: ErrFatal, hint: codexModelHint},
	outage,
}

// codexStatusIn finds the HTTP status Codex names in an error: "unexpected
// status 500 Internal Server Error", "last status: 503".
var codexStatusIn = lazyRegexp(`(?i)status:? (\d{3})\b`)

func codexStatus(text string) int {
	if m := codexStatusIn().FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
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

// codexTryAgainAt finds the reset time in Codex's usage-limit message:
// "Try again at 5:46 PM." (today), "try again at Mar 17th, 2030 5:46 PM.",
// or the same in the user's locale ("try again at 10 de jul. de 2026,
// 11:52"). Codex prints local times to the minute (truncated): the limit
// lifts within that minute.
var (
	codexTryAgainAt = lazyRegexp(`(?i)try again at ([^\n]{0,60}?)(\d{1,2}):(\d{2})(?:\s*([ap])\.?\s?m\b\.?)?`)
	codexDateWord   = lazyRegexp(`[\p{L}]+\.?|\d+(?:st|nd|rd|th)?`)
)

// codexResetAt reads when a usage limit lifts from Codex's message, in
// now's time zone; zero when the message does not say.
func codexResetAt(text string, now time.Time) Reset {
	m := codexTryAgainAt().FindStringSubmatch(text)
	if m == nil {
		if d, ok := retryDelay(text); ok {
			return exactReset(now.Add(d))
		}
		return Reset{}
	}
	hour, minute, ok := codexClock(m[2], m[3], m[4])
	if !ok {
		return Reset{}
	}
	date := strings.TrimSpace(m[1])
	if date == "" {
		t := time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, now.Location())
		if t.Before(now.Add(-time.Minute)) {
			t = t.AddDate(0, 0, 1) // printed as a time of day: the next one
		}
		return minuteReset(t)
	}
	year, month, day, ok := codexDate(date)
	if !ok {
		return Reset{}
	}
	return minuteReset(time.Date(year, month, day, hour, minute, 0, 0, now.Location()))
}

// codexClock reads a time of day printed by Codex: the hour, the minute,
// and "a" or "p" on a 12-hour clock ("" on a 24-hour one); ok is false
// for a time that cannot be.
func codexClock(h, m, ampm string) (hour, minute int, ok bool) {
	hour, _ = strconv.Atoi(h)
	minute, _ = strconv.Atoi(m)
	if minute > 59 || hour > 23 {
		return 0, 0, false
	}
	if ampm != "" { // a 12-hour clock
		if hour < 1 || hour > 12 {
			return 0, 0, false
		}
		hour %= 12
		if strings.EqualFold(ampm, "p") {
			hour += 12
		}
	}
	return hour, minute, true
}

// codexDate reads a date printed by Codex in any of the locales of
// monthNames ("Mar 17th, 2030", "10 de jul. de 2026,"); ok is false
// unless it names a year, a month and a day, each once.
func codexDate(date string) (year int, month time.Month, day int, ok bool) {
	for _, w := range codexDateWord().FindAllString(date, -1) {
		w = strings.TrimRight(strings.ToLower(w), ".")
		if n, err := strconv.Atoi(strings.TrimRight(w, "stndrh")); err == nil && w[0] >= '0' && w[0] <= '9' {
			switch {
			case n >= 1000 && year == 0:
				year = n
			case n >= 1 && n <= 31 && day == 0:
				day = n
			default:
				return 0, 0, 0, false
			}
			continue
		}
		if mo := monthName(w); mo != 0 && month == 0 {
			month = mo
		}
	}
	return year, month, day, year != 0 && month != 0 && day != 0
}

// monthNames are month abbreviations in English and in the locales Codex
// users report seeing (Portuguese, Spanish, French, German), by prefix.
var monthNames = map[string]time.Month{
	"janv": 1, "févr": 2, "sept": 9, "juin": 6, "juil": 7,
	"jan": 1, "ene": 1, "feb": 2, "fev": 2, "fév": 2, "mar": 3, "mär": 3, "apr": 4, "abr": 4, "avr": 4,
	"may": 5, "mai": 5, "jun": 6, "jul": 7, "aug": 8, "ago": 8, "aoû": 8, "sep": 9, "set": 9,
	"oct": 10, "out": 10, "okt": 10, "nov": 11, "dec": 12, "dez": 12, "dic": 12, "déc": 12,
}

// monthName is the month w (lower case) names, 0 for none.
func monthName(w string) time.Month {
	r := []rune(w)
	for _, n := range []int{4, 3} {
		if len(r) >= n {
			if m, ok := monthNames[string(r[:n])]; ok {
				return m
			}
		}
	}
	return 0
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
