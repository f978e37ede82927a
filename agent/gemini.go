package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
)

// geminiMaxLine bounds one line of the Gemini CLI's output held in memory;
// its lines are message pieces, tool calls and the result, all small, but
// tool parameters can carry whole files. Longer lines are cut and skipped.
const geminiMaxLine = 1 << 20

// geminiMaxFinal bounds the final message kept: its end, where a
// completion tag goes.
const geminiMaxFinal = 1 << 20

// geminiStderrTail is how much of the CLI's stderr is kept (its errors come
// with Node stack traces).
const geminiStderrTail = 8192

const (
	geminiInstallHint = "install the Gemini CLI (npm install -g @google/gemini-cli) or point --agent-bin at it"
	geminiAuthHint    = "check the credentials the Gemini CLI uses: set GEMINI_API_KEY (with security.auth.selectedType " +
		"\"gemini-api-key\" in ~/.gemini/settings.json), or run gemini once to log in"
	geminiModelHint = "check --model: give a model the Gemini API serves (e.g. --model gemini-2.5-pro)"
)

// The Gemini CLI's own exit codes (packages/core/src/utils/exitCodes.ts);
// after an API error it exits with the HTTP status & 0xFF instead.
const (
	geminiExitAuth   = 41
	geminiExitInput  = 42
	geminiExitConfig = 52
	// geminiExitUntrusted: a headless run in an untrusted folder.
	geminiExitUntrusted = 55
)

// gemini drives the Gemini CLI headless: one `gemini --output-format
// stream-json --yolo` process per iteration (never resumed), the prompt on
// stdin, its JSON lines parsed as they arrive. The CLI reports tokens per
// model, not dollars: the cost is those tokens times the price table.
type gemini struct{ cliAdapter }

// CheckPrices reports a model whose cost cannot be known: see
// checkTokenPrices.
func (a *gemini) CheckPrices() error {
	return checkTokenPrices("gemini", "the Gemini CLI", a.model, a.prices, "gemini-2.5-pro")
}

// geminiArgs is the command line after the executable's name. The prompt
// is not on it: the CLI reads a piped stdin as the prompt (up to 8 MiB),
// so no argument-length limit applies. --yolo approves every tool call;
// --skip-trust trusts the workspace for the run, without which a headless
// run in a folder the user never trusted (a fresh worktree) stops at once.
func geminiArgs(model string, extra []string) []string {
	return cmdline([]string{"--output-format", "stream-json", "--yolo", "--skip-trust"}, "-m", model, extra)
}

func (a *gemini) Run(ctx context.Context, req Request) Outcome {
	s := &geminiStream{dir: req.Dir, onActivity: req.OnActivity}
	if req.OnSpend != nil {
		s.onResult = func(st *geminiStats) {
			c, ok := a.cost(s, st)
			req.OnSpend(Spend{Usage: st.usage(), Cost: c, CostKnown: ok})
		}
	}
	res, stderr := a.run(ctx, req, cliRun{args: geminiArgs(a.model, a.args), line: s.line, maxLine: geminiMaxLine,
		stderrTail: geminiStderrTail, stderrLine: s.stderrLine, toFile: "architect-gemini-*.jsonl"})
	return a.outcome(res, s, stderr)
}

// outcome turns a finished run into an Outcome.
func (a *gemini) outcome(res proc.Result, s *geminiStream, stderr string) Outcome {
	return build(res, geminiInstallHint, func(o *Outcome) { a.figures(o, s, res) }, func(o *Outcome) { a.classify(o, s, stderr) })
}

func (a *gemini) figures(o *Outcome, s *geminiStream, res proc.Result) {
	o.FinalMessage = string(s.text)
	o.Steps = s.toolCalls
	switch r := s.result; {
	case r != nil && r.Stats != nil:
		o.Steps = max(o.Steps, r.Stats.ToolCalls)
		o.Usage = r.Stats.usage()
		o.Cost, o.CostKnown = a.cost(s, r.Stats)
	case !s.answered && !res.TimedOut && !res.Inactive && !res.Canceled:
		// It stopped by itself before any answer from the model (e.g. no
		// credentials): nothing was billed.
		o.CostKnown = true
	}
	// Timed out or inactive: fromProc said it; add what the CLI last
	// complained about.
	if msg := s.errorText(); msg != "" && o.ErrKind != ErrNone {
		o.Err += "; gemini: " + msg
	}
}

// cost prices the tokens of each model the run used (the CLI may use more
// than one, e.g. when it routes); it is known only when every model that
// used tokens has a price.
func (a *gemini) cost(s *geminiStream, st *geminiStats) (float64, bool) {
	if len(st.Models) == 0 {
		model := a.model
		if model == "" {
			model = s.model
		}
		u := st.usage()
		if u == (Usage{}) {
			return 0, true
		}
		return a.prices.Cost(model, u)
	}
	names := make([]string, 0, len(st.Models))
	for m := range st.Models {
		names = append(names, m)
	}
	sort.Strings(names) // a fixed order for a reproducible sum
	total, known := 0.0, true
	for _, m := range names {
		u := st.Models[m].usage()
		if u == (Usage{}) {
			continue
		}
		c, ok := a.prices.Cost(m, u)
		total += c
		known = known && ok
	}
	if !known {
		return 0, false
	}
	return total, true
}

// classify sets ErrKind, Err, Hint and ResetAt from the CLI's structured
// errors (the result line's error, error events) and its exit status, or
// its stderr when it printed no structured error; never from tool output.
func (a *gemini) classify(o *Outcome, s *geminiStream, stderr string) {
	ok := s.result != nil && s.result.Status == "success"
	if ok && o.ExitCode == 0 {
		return
	}
	text := s.errorText()
	if text == "" {
		text = geminiStderrMessage(stderr)
	}
	o.Err = runErr("gemini", text, o.ExitCode, s.result != nil)
	var reset Reset
	o.ErrKind, o.Hint, reset = geminiClassify(o.ExitCode, text, a.now())
	o.setReset(reset)
}

// geminiClassify sorts a failed run (exit status and error message, as
// observed with 0.61.0 against HTTP errors; see testdata/gemini) into an
// ErrorKind, with a hint for fatal errors and the reset time of a quota
// when the message gives one: "Suggested retry after 37s." for a
// per-minute quota (the CLI says 60s when the API gave no delay), and for
// a per-day quota ("You have exhausted your daily quota", or a quota id
// with PerDay), the next midnight Pacific time, when Google resets it.
func geminiClassify(exit int, text string, now time.Time) (ErrorKind, string, Reset) {
	return geminiErrors.classify(failure{text: text, msg: text, exit: exit, status: geminiStatus(exit, text), now: now})
}

var geminiErrors = errTable{
	{exit: []int{geminiExitAuth}, status: []int{401, 403},
		text: []string{"api key not valid", "api_key_invalid", "unauthenticated", "permission_denied", "gemini_api_key",
			"invalid auth method", "invalid authentication credentials"},
		kind: ErrFatal, hint: geminiAuthHint},
	{status: []int{404}, text: []string{"is not found for api version", "model not found", "modelnotfound"},
		kind: ErrFatal, hint: geminiModelHint},
	// The service is short of capacity, not the account of quota.
	{text: []string{"exhausted your capacity", "capacity exceeded", "model_capacity_exhausted", "overloaded"}, kind: ErrOutage},
	{status: []int{429}, text: []string{"resource_exhausted", "exceeded your current quota", "exhausted your daily quota",
		"quota exceeded", "resource has been exhausted"},
		kind: ErrUsageLimit, reset: geminiQuotaReset},
	{exit: []int{geminiExitUntrusted}, text: []string{"not running in a trusted directory"},
		kind: ErrFatal, hint: "let the Gemini CLI trust the workspace: unset GEMINI_CLI_TRUST_WORKSPACE=false and " +
			"GEMINI_RESTRICTED_MODE, or trust the folder in interactive mode"},
	{exit: []int{geminiExitConfig},
		kind: ErrFatal, hint: "fix the Gemini CLI's settings (~/.gemini/settings.json) or the flags given with --agent-arg"},
	{exit: []int{geminiExitInput},
		kind: ErrFatal, hint: "the Gemini CLI refused its input: check the flags given with --agent-arg"},
	outage,
}

// geminiQuotaReset is when a quota lifts: the next midnight Pacific time
// for a per-day quota, else after the delay the message suggests.
func geminiQuotaReset(f failure) Reset {
	if containsFold(f.text, "daily quota", "perday") {
		return exactReset(pacificMidnight(f.now))
	}
	return retryReset(f)
}

// geminiStatusIn finds an HTTP status in an API error message:
// "(Status: 404)" or a JSON body's "code":404.
var geminiStatusIn = lazyRegexp(`\(Status: (\d{3})\)|"code":\s*(\d{3})\b`)

// geminiStatus is the HTTP status behind a failed run: from the message,
// else from the exit status, which the CLI sets to the status & 0xFF after
// an API error.
func geminiStatus(exit int, text string) int {
	if m := geminiStatusIn().FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1] + m[2])
		return n
	}
	switch exit {
	case 400 & 0xFF, 401 & 0xFF, 403 & 0xFF, 404 & 0xFF, 429 & 0xFF:
		return exit | 0x100
	}
	if exit >= 500&0xFF && exit <= 511&0xFF {
		return exit | 0x100
	}
	return 0
}

// geminiStderrMessage is the CLI's complaint on stderr, without its
// start-up notices and stack traces.
func geminiStderrMessage(stderr string) string {
	var keep []string
	for _, l := range strings.Split(stderr, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "", strings.HasPrefix(t, "at "), strings.HasPrefix(t, "YOLO mode"),
			strings.HasPrefix(t, "Warning: 256-color"), strings.HasPrefix(t, "Ripgrep is not available"),
			strings.HasPrefix(t, "[STARTUP]"), strings.HasPrefix(t, "Approval mode overridden"):
			continue
		}
		keep = append(keep, t)
	}
	if len(keep) > 10 {
		keep = keep[len(keep)-10:]
	}
	return strings.Join(keep, "\n")
}

// geminiStream follows the CLI's stream-json lines. Only the result line's
// error and error events are used for errors; tool output is never looked
// at.
type geminiStream struct {
	dir        string
	onActivity func(string)
	onResult   func(*geminiStats) // when the result line gives the run's figures, may be nil

	model     string // from the init line
	text      []byte // assistant text since the last tool call: the final message at the end
	toolCalls int
	answered  bool         // an assistant message or tool call arrived
	result    *geminiEvent // the result line
	errorMsg  string       // the last error event of severity "error"
}

// geminiEvent is one stream-json line; unknown fields and types are
// ignored.
type geminiEvent struct {
	Type     string          `json:"type"`
	Model    string          `json:"model"`   // init
	Role     string          `json:"role"`    // message
	Content  string          `json:"content"` // message
	Delta    bool            `json:"delta"`   // message
	ToolName string          `json:"tool_name"`
	Params   json.RawMessage `json:"parameters"` // tool_use
	Status   string          `json:"status"`     // tool_result, result
	Severity string          `json:"severity"`   // error
	Message  string          `json:"message"`    // error
	Error    *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"` // result (and tool_result, never read)
	Stats *geminiStats `json:"stats"` // result
}

// geminiTokens are one model's (or the run's) token counts.
type geminiTokens struct {
	Total  int64  `json:"total_tokens"`
	Prompt int64  `json:"input_tokens"`  // includes the cached ones
	Output int64  `json:"output_tokens"` // candidates only: no thoughts
	Cached int64  `json:"cached"`
	Input  *int64 `json:"input"` // uncached input
}

type geminiStats struct {
	geminiTokens
	ToolCalls int                     `json:"tool_calls"`
	Models    map[string]geminiTokens `json:"models"`
}

// usage normalises the counts: Input is the uncached input; Output counts
// everything beyond the prompt (candidates and thoughts, which are billed
// as output but left out of output_tokens).
func (t geminiTokens) usage() Usage {
	prompt, cached := max(t.Prompt, 0), max(t.Cached, 0)
	input := prompt - min(cached, prompt)
	if t.Input != nil && *t.Input >= 0 {
		input = *t.Input
	}
	out := max(t.Output, 0)
	if t.Total-prompt > out {
		out = t.Total - prompt
	}
	return Usage{Input: input, CachedInput: cached, Output: out}
}

// line handles one line of output.
func (s *geminiStream) line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var ev geminiEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return
	}
	switch ev.Type {
	case "init":
		s.model = ev.Model
	case "message":
		if ev.Role != "assistant" {
			return
		}
		s.answered = true
		if !ev.Delta {
			s.text = s.text[:0]
		}
		s.text = append(s.text, ev.Content...)
		if len(s.text) > geminiMaxFinal {
			tail, _ := prompt.TruncateTail(string(s.text), geminiMaxFinal)
			s.text = append(s.text[:0], tail...)
		}
	case "tool_use":
		s.answered = true
		s.toolCalls++
		s.text = s.text[:0] // the final message is the text after the last tool call
		s.activity(ev.ToolName + ": " + geminiToolSummary(s.dir, ev.Params))
	case "error":
		if msg := strings.TrimSpace(ev.Message); msg != "" {
			if ev.Severity != "warning" {
				s.errorMsg = msg
			}
			s.activity(ev.Severity + ": " + msg)
		}
	case "result":
		s.result = &ev
		if s.onResult != nil && ev.Stats != nil {
			s.onResult(ev.Stats)
		}
		if ev.Status != "success" && ev.Error != nil {
			s.activity("error: " + ev.Error.Message)
		} else if len(s.text) > 0 {
			s.activity("message: " + string(s.text))
		}
	}
}

func (s *geminiStream) activity(msg string) {
	if s.onActivity != nil {
		s.onActivity(shortActivity(msg))
	}
}

// geminiRetry matches the CLI's own notice of a retried request on
// stderr: "Attempt 1 failed with status 500. Retrying with backoff...".
var geminiRetry = lazyRegexp(`^Attempt (\d+) failed(?: with status (\d{3}))?\. Retrying`)

// stderrLine shows the CLI's retries as activity: a run that keeps
// retrying a failing request (for minutes, by default) is seen to.
func (s *geminiStream) stderrLine(b []byte) {
	m := geminiRetry().FindSubmatch(bytes.TrimSpace(b))
	if m == nil {
		return
	}
	what := "API request failed"
	if len(m[2]) > 0 {
		what = "API error " + string(m[2])
	}
	s.activity(what + ", retrying (attempt " + string(m[1]) + ")")
}

// errorText is the structured error of the run: the result line's, else
// the last error event's.
func (s *geminiStream) errorText() string {
	if r := s.result; r != nil && r.Status != "success" && r.Error != nil {
		if msg := strings.TrimSpace(r.Error.Message); msg != "" {
			return msg
		}
	}
	if r := s.result; r != nil && r.Status != "success" {
		if s.errorMsg != "" {
			return s.errorMsg
		}
		return "the run ended with status " + strconv.Quote(r.Status)
	}
	return s.errorMsg
}

// geminiToolSummary shows the telling parameter of a tool call.
func geminiToolSummary(dir string, params json.RawMessage) string {
	var p map[string]any
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	for _, k := range []string{"command", "file_path", "absolute_path", "path", "dir_path", "pattern", "query", "url", "prompt"} {
		if v, ok := p[k].(string); ok && v != "" {
			if strings.HasSuffix(k, "path") {
				return relPath(dir, v)
			}
			return v
		}
	}
	return ""
}
