package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
)

// opencodeMaxLine bounds one line of opencode's output held in memory. A
// text part carries a whole message, so it is generous; longer lines (big
// tool outputs) are cut and then ignored.
const opencodeMaxLine = 1 << 20

// opencodeStderrTail is how much of opencode's stderr is kept for the error
// of a run that ends without an error event.
const opencodeStderrTail = 4096

// opencodeLogLines is how many of opencode's ERROR log lines are kept, to
// explain an "UnknownError … ref=err_…" event.
const opencodeLogLines = 20

const opencodeInstallHint = "install opencode (npm install -g opencode-ai) or point --agent-bin at it"

// opencode drives opencode headless: one `opencode run --format json`
// process per iteration, the prompt on stdin, its JSON events parsed as
// they arrive. Cost is opencode's own figure (models.dev prices).
type opencode struct{ cliAdapter }

// opencodeArgs is the command line after the executable's name. The prompt
// is not on it: opencode re-quotes every argument that holds a space (the
// model would see `"…\"…\"…"`), while stdin reaches it verbatim. --auto
// approves permission requests that are not explicitly denied (without it
// opencode 1.18 rejects them, e.g. any access outside the workspace);
// --title spares the extra model call opencode makes to name the session,
// whose cost it does not report; the ERROR log on stderr explains the
// errors its JSON events only give a reference for.
func opencodeArgs(model string, iteration int, extra []string) []string {
	return cmdline([]string{"run", "--format", "json", "--auto",
		"--title", "architect iteration " + strconv.Itoa(iteration),
		"--print-logs", "--log-level", "ERROR"}, "--model", model, extra)
}

func (a *opencode) Run(ctx context.Context, req Request) Outcome {
	s := &opencodeStream{dir: req.Dir, onActivity: req.OnActivity}
	if req.OnSpend != nil {
		s.onStep = func() {
			c, ok := a.spent(s)
			req.OnSpend(Spend{Usage: s.usage, Cost: c, CostKnown: ok})
		}
	}
	logs := &opencodeLog{}
	res, stderr := a.run(ctx, req, cliRun{args: opencodeArgs(a.model, req.Iteration, a.args), line: s.line,
		maxLine: opencodeMaxLine, stderrTail: opencodeStderrTail, stderrLine: logs.line})
	return a.outcome(res, s, logs, stderr)
}

// opencodeStream reads opencode's `--format json` events one line at a time
// and keeps what the Outcome needs. Tool parts are only summarised for the
// activity line; their input and output are never looked at for errors.
type opencodeStream struct {
	dir        string
	onActivity func(string)
	onStep     func() // after each step_finish, may be nil

	steps    int     // step_finish parts seen
	open     bool    // a step started and has not finished
	newStep  bool    // the next text part starts the step's text
	stepText string  // the text of the latest step that had some
	cost     float64 // summed step_finish costs
	usage    Usage

	err *opencodeError // the last error event
}

// opencodeError is an error event: {"type":"error","error":{"name",
// "data":{"message","statusCode","isRetryable","responseBody",
// "responseHeaders","ref",…}}}.
type opencodeError struct {
	Name string `json:"name"`
	Data struct {
		Message         string            `json:"message"`
		StatusCode      int               `json:"statusCode"`
		ResponseBody    string            `json:"responseBody"`
		ResponseHeaders map[string]string `json:"responseHeaders"`
		Ref             string            `json:"ref"`
		ProviderID      string            `json:"providerID"`
	} `json:"data"`
}

type opencodeTokens struct {
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

type opencodePart struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Tool  string          `json:"tool"`
	Cost  float64         `json:"cost"`
	Tok   *opencodeTokens `json:"tokens"`
	State struct {
		Status string         `json:"status"`
		Title  string         `json:"title"`
		Input  map[string]any `json:"input"`
	} `json:"state"`
}

func (s *opencodeStream) line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	var ev struct {
		Type  string          `json:"type"`
		Part  json.RawMessage `json:"part"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &ev) != nil {
		return // not JSON, or cut at the line limit
	}
	var p opencodePart
	if len(ev.Part) > 0 && json.Unmarshal(ev.Part, &p) != nil {
		return
	}
	switch ev.Type {
	case "step_start":
		s.open, s.newStep = true, true
	case "text":
		if strings.TrimSpace(p.Text) == "" {
			return
		}
		if s.newStep || s.stepText == "" {
			s.stepText, s.newStep = p.Text, false
		} else {
			s.stepText += "\n" + p.Text
		}
		s.activity(claudeFirstLine(p.Text, 160))
	case "tool_use":
		msg := opencodeToolSummary(p, s.dir)
		if p.State.Status == "error" {
			msg += " (failed)"
		}
		s.activity(msg)
	case "step_finish":
		s.steps++
		s.open = false
		s.cost += p.Cost
		if t := p.Tok; t != nil {
			s.usage.Input += t.Input + t.Cache.Write
			s.usage.CachedInput += t.Cache.Read
			s.usage.Output += t.Output + t.Reasoning
		}
		if s.onStep != nil {
			s.onStep()
		}
	case "error":
		var e opencodeError
		if json.Unmarshal(ev.Error, &e) != nil {
			return
		}
		s.err = &e
		s.activity("error: " + claudeFirstLine(e.text(), 160))
	}
}

func (s *opencodeStream) activity(msg string) {
	if s.onActivity != nil && msg != "" {
		s.onActivity(msg)
	}
}

// text is the error's message, or its name when it has none.
func (e *opencodeError) text() string {
	if e.Data.Message != "" {
		return e.Data.Message
	}
	return e.Name
}

// opencodeToolSummary is one line about a tool call: the tool and its
// title (opencode's own one-line description), or its main argument.
func opencodeToolSummary(p opencodePart, dir string) string {
	arg := p.State.Title
	if arg == "" {
		arg = toolArg(p.State.Input, dir, "filePath", "path", "command", "pattern", "url", "query", "description")
	}
	if arg == "" {
		return p.Tool
	}
	return p.Tool + " " + claudeFirstLine(arg, 120)
}

// toolArg returns the first of keys that input holds as a non-empty string,
// with paths inside dir made relative to it.
func toolArg(input map[string]any, dir string, keys ...string) string {
	for _, k := range keys {
		v, ok := input[k].(string)
		if !ok || v == "" {
			continue
		}
		if dir != "" && strings.HasPrefix(v, dir+"/") && strings.Contains(strings.ToLower(k), "path") {
			v = strings.TrimPrefix(v, dir+"/")
		}
		return v
	}
	return ""
}

// opencodeLog keeps the last ERROR lines of opencode's log on stderr
// (`timestamp=… level=ERROR … ref=err_… error="…"`), cut to 1 KiB each.
type opencodeLog struct {
	lines []string
}

func (l *opencodeLog) line(b []byte) {
	if !bytes.Contains(b, []byte("level=ERROR")) {
		return
	}
	s := string(b)
	if len(s) > 1024 {
		s = s[:1024]
	}
	if len(l.lines) == opencodeLogLines {
		l.lines = l.lines[1:]
	}
	l.lines = append(l.lines, s)
}

var opencodeLogError = lazyRegexp(`\berror="((?:[^"\\]|\\.)*)"`)

// explain returns the error logged with ref, "" if none was kept.
func (l *opencodeLog) explain(ref string) string {
	if ref == "" {
		return ""
	}
	for i := len(l.lines) - 1; i >= 0; i-- {
		if !strings.Contains(l.lines[i], "ref="+ref) {
			continue
		}
		if m := opencodeLogError().FindStringSubmatch(l.lines[i]); m != nil {
			if s, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
				return s
			}
			return m[1]
		}
	}
	return ""
}

// outcome turns a finished run into an Outcome.
func (a *opencode) outcome(res proc.Result, s *opencodeStream, logs *opencodeLog, stderr string) Outcome {
	return build(res, opencodeInstallHint, func(o *Outcome) { a.figures(o, s, res) }, func(o *Outcome) { a.classify(o, s, logs, stderr) })
}

// figures sets the run's figures; its cost is what spent says, but a run
// killed in the middle of a step spent tokens that were never reported:
// its cost is unknown.
func (a *opencode) figures(o *Outcome, s *opencodeStream, res proc.Result) {
	o.FinalMessage = s.stepText
	o.Steps = s.steps
	o.Usage = s.usage
	o.Cost, o.CostKnown = a.spent(s)
	if s.open && (res.TimedOut || res.Inactive || res.Canceled) {
		o.CostKnown = false
	}
}

// spent is what the steps so far cost: opencode's own sum. opencode reports
// $0 for models it has no price for (local models, custom providers) and
// for subscriptions: then the tokens are priced at the --model's price (the
// user's, else the built-in table's), and without one the cost is unknown,
// never a $0 that a budget would trust. A user who knows the model is free
// says so with a price of 0.
func (a *opencode) spent(s *opencodeStream) (float64, bool) {
	if s.cost > 0 || s.usage == (Usage{}) {
		return s.cost, true
	}
	if a.model == "" {
		return 0, false
	}
	return a.prices.Cost(a.model, s.usage)
}

// classify sets ErrKind, Err, Hint and ResetAt from opencode's error events
// (explained by its ERROR log when they only carry a reference), or from
// the exit status and stderr when there is no event.
func (a *opencode) classify(o *Outcome, s *opencodeStream, logs *opencodeLog, stderr string) {
	e := s.err
	if e == nil {
		if o.ExitCode == 0 {
			return
		}
		o.ErrKind = ErrTransient
		switch {
		case s.steps == 0 && strings.Contains(stderr, "opencode run [message..]"):
			o.ErrKind = ErrFatal
			o.Err = "opencode refused its command line (it printed its usage)"
			o.Hint = "architect needs opencode 1.18 or later (for --auto); check the flags given with --agent-arg"
		case strings.TrimSpace(stderr) != "":
			o.Err = fmt.Sprintf("opencode exited with status %d: %s", o.ExitCode, lastLines(strings.TrimSpace(stderr), 10))
		default:
			o.Err = fmt.Sprintf("opencode exited with status %d", o.ExitCode)
		}
		return
	}
	text := e.text()
	if why := logs.explain(e.Data.Ref); why != "" {
		text = why
	}
	o.Err = "opencode: " + capText(text, 2000)
	if e.Data.StatusCode != 0 {
		o.Err = fmt.Sprintf("opencode: %s (HTTP %d)", capText(text, 2000), e.Data.StatusCode)
	}
	all := text + " " + e.Name + " " + e.Data.ResponseBody
	opencodeErrors.apply(o, failure{text: all, msg: all, status: e.Data.StatusCode, code: e.Name,
		headers: e.Data.ResponseHeaders, now: a.now()})
}

const providerBillingHint = "the provider account has no credit left: add some or use another key"

var opencodeErrors = errTable{
	planLimit,
	// A rate limit, as for every agent: waited out, for as long as the
	// provider asks when it says (its headers, or its message).
	{status: []int{429}, exact: []string{"rate_limit_error"}, kind: ErrUsageLimit, reset: headerOrRetryReset},
	{code: []string{"ProviderAuthError"}, status: []int{401}, text: []string{"authentication_error", "invalid api key", "invalid x-api-key", "incorrect api key"},
		kind: ErrFatal, hint: "check the provider credentials opencode uses (opencode auth login, or the provider's API key variable)"},
	{status: []int{403}, kind: ErrFatal, hint: "the provider refused access: check the API key's permissions or the account"},
	{exact: []string{"ModelNotFoundError"}, status: []int{404}, text: []string{"model not found", "not_found_error"},
		kind: ErrFatal, hint: "check --model: opencode wants provider/model, e.g. anthropic/claude-sonnet-4-5 (`opencode models` lists them)"},
	billing(providerBillingHint),
	outage,
}

// usageLimit reports whether an API error is a plan's usage limit (not a
// mere rate limit), and when it lifts if the body or headers say so:
// ChatGPT-plan `usage_limit_reached` bodies with resets_at or
// resets_in_seconds, Anthropic subscription headers
// (anthropic-ratelimit-unified-status: rejected, …-reset), Claude's "You've
// hit your limit · resets 5pm (…)" text; the other reset headers
// (Retry-After, x-ratelimit-reset-*) when nothing else does.
func usageLimit(text string, headers map[string]string, now time.Time) (bool, Reset) {
	limited, reset := planLimited(text, headers, now)
	if !limited {
		return false, Reset{}
	}
	if reset.At.IsZero() {
		reset = bodyReset(text, now)
	}
	if reset.At.IsZero() {
		if t := headerReset(headers, now); !t.IsZero() {
			reset = exactReset(t)
		}
	}
	return true, reset
}

// planLimited reports whether the body or the headers say a plan's usage
// limit was hit, and when it lifts if Anthropic's headers or Claude's
// text say.
func planLimited(text string, headers map[string]string, now time.Time) (bool, Reset) {
	limited := strings.Contains(text, "usage_limit_reached") || containsFold(text, "usage limit has been reached", "usage_not_included")
	var reset Reset
	if strings.EqualFold(headerFold(headers, "anthropic-ratelimit-unified-status"), "rejected") {
		limited = true
		if n, err := strconv.ParseInt(headerFold(headers, "anthropic-ratelimit-unified-reset"), 10, 64); err == nil && n > 0 {
			reset = exactReset(time.Unix(n, 0))
		}
	}
	if ok, r := claudeParseLimit(text, now); ok {
		limited = true
		if reset.At.IsZero() {
			reset = r
		}
	}
	return limited, reset
}

// bodyReset is when a ChatGPT-plan usage_limit_reached body says the limit
// lifts: its resets_at, else its resets_in_seconds; zero when it does not say.
func bodyReset(text string, now time.Time) Reset {
	if m := resetsAt().FindStringSubmatch(text); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil && n > 0 {
			return exactReset(time.Unix(n, 0))
		}
	}
	if m := resetsIn().FindStringSubmatch(text); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil && n > 0 {
			return exactReset(now.Add(time.Duration(n) * time.Second))
		}
	}
	return Reset{}
}

// headerFold is the value of header k, whatever the case of its name; ""
// when there is none.
func headerFold(headers map[string]string, k string) string {
	for hk, v := range headers {
		if strings.EqualFold(hk, k) {
			return v
		}
	}
	return ""
}

var (
	resetsAt = lazyRegexp(`\\?"resets_at\\?"\s*:\s*(\d{9,11})\b`)
	resetsIn = lazyRegexp(`\\?"resets_in_seconds\\?"\s*:\s*(\d+)\b`)
)

// containsFold reports whether s contains any of subs, ignoring case.
func containsFold(s string, subs ...string) bool {
	ls := strings.ToLower(s)
	for _, sub := range subs {
		if strings.Contains(ls, strings.ToLower(sub)) {
			return true
		}
	}
	return false
}

// capText cuts s to at most n bytes, on a rune boundary.
func capText(s string, n int) string {
	if head, rest := prompt.Truncate(s, n); rest > 0 {
		return head + "…"
	}
	return s
}
