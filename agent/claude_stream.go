package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// claudeStream reads Claude Code's stream-json output one line at a time,
// as it arrives, and keeps only what the Outcome needs: the result line's
// figures, the last thing the agent said, and the structured errors. It
// never looks at tool results (user lines), which can contain anything.
type claudeStream struct {
	dir        string       // the workspace, to shorten paths in activity lines
	onActivity func(string) // may be nil
	onSpend    func(Spend)  // may be nil
	prices     Prices       // to price the usage streamed before the result line

	result    *claudeResult
	truncated bool   // the result line was longer than the line limit
	tailSeen  bool   // and its figures were read from its end (longLine)
	tailText  string // the end of its result text, when it was cut

	lastText  string // the last text block of a (non-synthetic) assistant message
	model     string // the model of the last assistant message
	lastMsgID string // to count each assistant message once
	messages  int    // assistant messages seen (steps when there is no result line)
	usage     Usage  // summed over assistant messages (when there is no result line)

	apiError     string // the last synthetic assistant message's "error" (rate_limit, server_error, …)
	apiErrorText string // and its text

	limitRejected bool      // a rate_limit_event said "rejected"
	limitResetAt  time.Time // its resetsAt, zero if absent
	limitType     string    // its rateLimitType
}

// claudeResult is the final {"type":"result"} line.
type claudeResult struct {
	Subtype        string
	IsError        bool
	APIErrorStatus int
	NumTurns       int
	Result         string
	HasResult      bool
	Cost           float64
	HasCost        bool
	Usage          Usage
	Errors         []string // error_max_turns and error_during_execution give reasons here
}

// claudeUsage is the usage object of assistant messages and of the result.
type claudeUsage struct {
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	Output        int64 `json:"output_tokens"`
}

// usage normalises Claude's figures: Input counts every input token that
// was not read from the cache (cache writes included), CachedInput the
// cache reads.
func (u claudeUsage) usage() Usage {
	return Usage{Input: u.Input + u.CacheCreation, CachedInput: u.CacheRead, Output: u.Output}
}

// claudeBlock is one content block of an assistant message.
type claudeBlock struct {
	Type  string         `json:"type"`
	Text  string         `json:"text"`
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

// line handles one line of output. Lines that are not JSON objects (or
// were cut at the line limit) are ignored, except that a cut result line
// is read as far as it goes.
func (s *claudeStream) line(b []byte) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return
	}
	f, complete := claudeFields(b)
	var typ string
	if !claudeField(f, "type", &typ) || (!complete && typ != "result") {
		return
	}
	switch typ {
	case "system":
		var sub, model string
		claudeField(f, "subtype", &sub)
		switch {
		case sub == "init" && claudeField(f, "model", &model):
			s.activity("session started, model " + model)
		case sub == "api_retry":
			s.activity(claudeRetry(f))
		}
	case "assistant":
		s.assistant(f)
	case "result":
		s.resultLine(f, complete)
	case "rate_limit_event":
		var info struct {
			Status        string `json:"status"`
			ResetsAt      int64  `json:"resetsAt"`
			RateLimitType string `json:"rateLimitType"`
		}
		if !claudeField(f, "rate_limit_info", &info) {
			return
		}
		if info.Status == "rejected" {
			s.limitRejected = true
			s.limitType = info.RateLimitType
			s.limitResetAt = time.Time{}
			if info.ResetsAt > 0 {
				s.limitResetAt = time.Unix(info.ResetsAt, 0)
			}
			msg := "usage limit reached"
			if s.limitType != "" {
				msg += " (" + s.limitType + ")"
			}
			if !s.limitResetAt.IsZero() {
				msg += ", resets " + s.limitResetAt.Local().Format("2006-01-02 15:04 MST")
			}
			s.activity(msg)
		}
	}
}

func (s *claudeStream) assistant(f map[string]json.RawMessage) {
	var msg struct {
		ID      string            `json:"id"`
		Model   string            `json:"model"`
		Content []json.RawMessage `json:"content"`
		Usage   *claudeUsage      `json:"usage"`
	}
	if !claudeField(f, "message", &msg) {
		return
	}
	var parent string
	claudeField(f, "parent_tool_use_id", &parent)
	synthetic := msg.Model == "<synthetic>"
	var texts []string
	for _, raw := range msg.Content {
		var b claudeBlock
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) != "" {
				texts = append(texts, b.Text)
			}
		case "tool_use":
			if parent == "" {
				s.activity(s.toolSummary(b))
			}
		}
	}
	text := strings.Join(texts, "\n")
	if synthetic {
		// Claude Code reports API errors as a message of its own making.
		var kind string
		if claudeField(f, "error", &kind) || text != "" {
			s.apiError, s.apiErrorText = kind, text
		}
		if text != "" {
			s.activity("error: " + claudeFirstLine(text, 160))
		}
		return
	}
	if parent != "" { // a sub-agent's message: not the agent's final word
		return
	}
	if text != "" {
		s.lastText = text
		s.activity(claudeFirstLine(text, 160))
	}
	if msg.Model != "" {
		s.model = msg.Model
	}
	if msg.ID != "" && msg.ID != s.lastMsgID {
		// One line per content block, each with the message's usage.
		s.lastMsgID = msg.ID
		s.messages++
		if msg.Usage != nil {
			u := msg.Usage.usage()
			s.usage.add(u)
			if s.onSpend != nil && u != (Usage{}) {
				// Claude Code gives dollars only in its result line: until
				// then, the tokens so far at the model's price.
				c, ok := s.prices.Cost(s.model, s.usage)
				s.onSpend(Spend{Usage: s.usage, Cost: c, CostKnown: ok})
			}
		}
	}
}

func (s *claudeStream) resultLine(f map[string]json.RawMessage, complete bool) {
	r := &claudeResult{}
	claudeField(f, "subtype", &r.Subtype)
	claudeField(f, "is_error", &r.IsError)
	claudeField(f, "api_error_status", &r.APIErrorStatus)
	claudeField(f, "num_turns", &r.NumTurns)
	r.HasResult = claudeField(f, "result", &r.Result)
	r.HasCost = claudeField(f, "total_cost_usd", &r.Cost)
	var u claudeUsage
	if claudeField(f, "usage", &u) {
		r.Usage = u.usage()
	}
	claudeField(f, "errors", &r.Errors)
	s.result = r
	s.truncated = !complete
	if s.onSpend != nil && r.HasCost && complete {
		s.onSpend(Spend{Usage: r.Usage, Cost: r.Cost, CostKnown: true})
	}
	status := "done"
	if r.IsError {
		status = "failed"
	}
	msg := fmt.Sprintf("%s after %d turns", status, r.NumTurns)
	if r.HasCost {
		msg += fmt.Sprintf(", $%.4f", r.Cost)
	}
	s.activity(msg)
}

// claudeRetry describes an api_retry event: Claude Code retries a failed
// request (server error, overload, rate limit, network) on its own, for
// minutes if need be; each retry is shown, so that a run stuck retrying is
// seen as such.
func claudeRetry(f map[string]json.RawMessage) string {
	var attempt, maxRetries, status int
	var delay float64
	var kind string
	claudeField(f, "attempt", &attempt)
	claudeField(f, "max_retries", &maxRetries)
	claudeField(f, "retry_delay_ms", &delay)
	claudeField(f, "error_status", &status)
	claudeField(f, "error", &kind)
	what := "API error"
	if status != 0 {
		what += " " + strconv.Itoa(status)
	}
	if kind != "" {
		what += " (" + kind + ")"
	}
	if status == 0 && kind == "" {
		what = "API request failed"
	}
	msg := fmt.Sprintf("%s, retrying in %s", what, time.Duration(delay*float64(time.Millisecond)).Round(100*time.Millisecond))
	if attempt > 0 {
		msg += fmt.Sprintf(" (attempt %d", attempt)
		if maxRetries > 0 {
			msg += fmt.Sprintf("/%d", maxRetries)
		}
		msg += ")"
	}
	return msg
}

func (s *claudeStream) activity(msg string) {
	if s.onActivity != nil && msg != "" {
		s.onActivity(msg)
	}
}

// toolSummary is one line about a tool call: its name and main argument.
func (s *claudeStream) toolSummary(b claudeBlock) string {
	arg := ""
	for _, k := range []string{"file_path", "notebook_path", "path", "command", "pattern", "url", "query", "description", "prompt"} {
		if v, ok := b.Input[k].(string); ok && v != "" {
			arg = v
			if strings.HasSuffix(k, "path") && s.dir != "" && filepath.IsAbs(v) {
				if rel, err := filepath.Rel(s.dir, v); err == nil && !strings.HasPrefix(rel, "..") {
					arg = rel
				}
			}
			break
		}
	}
	if arg == "" {
		return b.Name
	}
	return b.Name + " " + claudeFirstLine(arg, 120)
}

// finalText is the agent's final message: the result line's, or when that
// line was cut short, the last thing the agent said.
func (s *claudeStream) finalText() string {
	if s.result == nil {
		return ""
	}
	if s.result.HasResult && !s.result.IsError {
		return s.result.Result
	}
	if s.truncated && !s.result.IsError {
		if s.tailText != "" {
			return s.tailText
		}
		return s.lastText
	}
	return ""
}

// claudeLineTail is how much of the end of a line too long to hold is
// kept: a result line's figures (cost, usage) come after its text.
const claudeLineTail = 64 << 10

// longLine handles a line longer than the line limit, from its head and
// its tail. Only a result line matters: its head gives the kind of result,
// its tail the cost, the usage and the end of the final message (where
// the completion tag is). Its middle, the bulk of the final message, is
// not kept.
func (s *claudeStream) longLine(head, tail []byte) {
	f, _ := claudeFields(bytes.TrimSpace(head))
	var typ string
	if !claudeField(f, "type", &typ) || typ != "result" {
		return
	}
	s.resultLine(f, false)
	r := s.result
	// `,"total_cost_usd":` cannot occur inside the text (its quotes would
	// be escaped): the last one starts the figures.
	if i := bytes.LastIndex(tail, []byte(`,"total_cost_usd":`)); i >= 0 {
		g, _ := claudeFields(append([]byte("{"), bytes.TrimSpace(tail[i+1:])...))
		r.HasCost = claudeField(g, "total_cost_usd", &r.Cost)
		var u claudeUsage
		if claudeField(g, "usage", &u) {
			r.Usage = u.usage()
		}
	}
	s.tailSeen = r.HasCost // from the tail, or from the head in another order
	if r.HasResult || bytes.Contains(head, []byte(`"result":"`)) {
		s.tailText = jsonStringEnd(tail)
	}
}

// jsonStringEnd decodes the end of a JSON string value that b starts
// inside of and that another field follows: up to the first `","`, which
// cannot occur inside an encoded string (its second quote would be
// escaped). The start may be the rest of an escape sequence cut in two
// ("\\u00e9" cut after "\\u0"): decoding starts at the first byte that
// cannot be part of one.
func jsonStringEnd(b []byte) string {
	end := bytes.Index(b, []byte(`","`))
	for p := 0; p < end; p++ {
		if c := b[p]; c == '\\' || strings.IndexByte(`"/bfnrtu0123456789abcdefABCDEF`, c) >= 0 || !utf8.RuneStart(c) {
			continue
		}
		var text string
		if json.Unmarshal(append(append([]byte{'"'}, b[p:end]...), '"'), &text) == nil {
			return text
		}
		break
	}
	return ""
}

// claudeLimitText matches Claude Code's usage-limit messages, in the
// wordings of its versions: "You've hit your limit · resets 5pm
// (Europe/Paris)", "You've hit your session limit · resets 9:04am (UTC)",
// "You've hit your weekly limit · resets Nov 28, 5pm (UTC)", "Claude usage
// limit reached. Your limit will reset at 3pm (America/Bogota)." and the
// oldest, "Claude AI usage limit reached|1750708800" (a Unix time after
// the bar).
var (
	claudeLimitText = lazyRegexp(`(?i)\byou(?:'|’)ve (?:hit|reached) your (?:[\w .-]+ )?limit\b|\bclaude (?:ai )?usage limit reached\b`)
	claudeResetText = lazyRegexp(`(?i)\b(?:resets|will reset) (?:at )?([A-Za-z]{3} \d{1,2}, (?:\d{4}, )?)?(\d{1,2}(?::\d{2})? ?[ap]m)\b(?: \(([^()]+)\))?`)
	claudeResetUnix = lazyRegexp(`(?i)usage limit reached\|(\d{9,11})\b`)
)

// claudeParseLimit reports whether text announces a usage limit, and when the
// limit resets if text says so and the time can be read (zero otherwise).
// A clock time is printed to the minute, so the reset is known within a
// minute; a Unix time is exact.
func claudeParseLimit(text string, now time.Time) (bool, Reset) {
	if !claudeLimitText().MatchString(text) {
		return false, Reset{}
	}
	if m := claudeResetUnix().FindStringSubmatch(text); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			return true, exactReset(time.Unix(n, 0))
		}
	}
	m := claudeResetText().FindStringSubmatch(text)
	if m == nil {
		return true, Reset{}
	}
	loc := time.Local
	if m[3] != "" {
		l, err := time.LoadLocation(strings.TrimSpace(m[3]))
		if err != nil {
			return true, Reset{}
		}
		loc = l
	}
	return true, minuteReset(claudeResetTime(strings.TrimSpace(m[1]), strings.ReplaceAll(strings.ToLower(m[2]), " ", ""), now.In(loc)))
}

// claudeResetTime reads "5pm" or "9:04am" as the next time the clock shows that
// (after now, in now's location), and "Nov 28," or "Nov 28, 2027," plus
// the clock time as that date (this year when no year is given).
func claudeResetTime(date, clock string, now time.Time) time.Time {
	layout := "3pm"
	if strings.Contains(clock, ":") {
		layout = "3:04pm"
	}
	c, err := time.Parse(layout, clock)
	if err != nil {
		return time.Time{}
	}
	loc := now.Location()
	if date == "" {
		t := time.Date(now.Year(), now.Month(), now.Day(), c.Hour(), c.Minute(), 0, 0, loc)
		if !t.After(now) {
			t = time.Date(now.Year(), now.Month(), now.Day()+1, c.Hour(), c.Minute(), 0, 0, loc)
		}
		return t
	}
	date = strings.TrimSuffix(date, ",")
	for _, layout := range []string{"Jan 2, 2006", "Jan 2"} {
		d, err := time.Parse(layout, date)
		if err != nil {
			continue
		}
		year := d.Year()
		if layout == "Jan 2" {
			year = now.Year()
		}
		return time.Date(year, d.Month(), d.Day(), c.Hour(), c.Minute(), 0, 0, loc)
	}
	return time.Time{}
}

// claudeFields splits a JSON object into its top-level fields. When the
// object is cut short (a line longer than the line limit) it returns the
// fields that came before the cut, and complete is false.
func claudeFields(b []byte) (f map[string]json.RawMessage, complete bool) {
	if json.Unmarshal(b, &f) == nil {
		return f, true
	}
	f = map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return f, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := t.(string)
		if !ok {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		f[key] = v
	}
	return f, false
}

// field decodes f[key] into v and reports whether it was there, not null,
// and of the right type.
func claudeField(f map[string]json.RawMessage, key string, v any) bool {
	raw, ok := f[key]
	if !ok || string(raw) == "null" {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// firstLine returns the first non-empty line of s, cut to at most n runes.
func claudeFirstLine(s string, n int) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			s = l
			break
		}
	}
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
