package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/proc"
)

const aiderInstallHint = "install aider (python -m pip install aider-install && aider-install) or point --agent-bin at it"

// aiderMaxLine bounds one line of aider's output, and of its LLM history.
const aiderMaxLine = 64 << 10

// aiderMaxFinal bounds the final message read back from the LLM history.
const aiderMaxFinal = 1 << 20

// aiderStderrTail is how much of aider's stderr is kept.
const aiderStderrTail = 4096

// aider drives aider headless: one `aider --message-file F` process per
// iteration. aider has no JSON output: the usage and cost come from its own
// report lines on stdout ("Tokens: … Cost: $X message, $Y session."), its
// errors from its own error lines, and the final message from its LLM
// history file, which architect points at a temporary file.
type aider struct{ cliAdapter }

// aiderArgs is the command line after the executable's name: apply the
// message and exit, say yes to aider's questions but commit nothing (the
// loop commits), plain unstreamed output, and no update checks, release
// notes, analytics (whose opt-in question --yes-always would accept),
// model-warning prompts or URL scraping. aider writes its chat and input
// histories into the workspace and, in a git repository, adds ".aider*" to
// its .gitignore (seen with aider 0.86): the histories go to tmp instead
// and .gitignore is left alone, so the only changes in the workspace are
// the ones the model made.
func aiderArgs(messageFile, tmp, model string, extra []string) []string {
	return cmdline([]string{"--message-file", messageFile, "--yes-always",
		"--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
		"--no-pretty", "--no-stream", "--no-check-update", "--no-show-release-notes",
		"--no-analytics", "--no-show-model-warnings", "--no-detect-urls",
		"--llm-history-file", filepath.Join(tmp, "llm-history.txt"),
		"--chat-history-file", filepath.Join(tmp, "chat-history.md"),
		"--input-history-file", filepath.Join(tmp, "input-history")}, "--model", model, extra)
}

// aiderTagsCache is the folder aider's repository map caches its tags in,
// at the top of the workspace, whatever the command line says (aider 0.86:
// ".aider.tags.cache.v4"; the version may change).
const aiderTagsCache = ".aider.tags.cache.v*"

// aiderCaches lists the tags caches in dir, so that the ones a run
// creates can be removed after it (one the user had is left alone).
func aiderCaches(dir string) map[string]bool {
	m, _ := filepath.Glob(filepath.Join(dir, aiderTagsCache))
	out := make(map[string]bool, len(m))
	for _, p := range m {
		out[p] = true
	}
	return out
}

// aiderNotStarted is the outcome of a run that failed before aider
// started (its temporary folder or prompt file): worth another try.
func aiderNotStarted(err error) Outcome {
	return Outcome{ExitCode: -1, ErrKind: ErrTransient, Err: fmt.Sprintf("aider: %v", err)}
}

func (a *aider) Run(ctx context.Context, req Request) Outcome {
	tmp, err := os.MkdirTemp(req.TempDir, "architect-aider-")
	if err != nil {
		return aiderNotStarted(err)
	}
	defer os.RemoveAll(tmp)
	msgFile := req.PromptFile
	if msgFile == "" {
		msgFile = filepath.Join(tmp, "prompt.md")
		if err := os.WriteFile(msgFile, []byte(req.Prompt), 0o600); err != nil {
			return aiderNotStarted(err)
		}
	}
	history := filepath.Join(tmp, "llm-history.txt")
	dir := req.Dir
	if dir == "" {
		dir = "."
	}
	caches := aiderCaches(dir)

	s := &aiderStream{onActivity: req.OnActivity}
	// aider prints through rich, which wraps lines at the terminal's width
	// (80 columns without a terminal), splitting its report lines. The
	// message is in msgFile; aider's stdin is /dev/null.
	res, stderr := a.run(ctx, req, cliRun{args: aiderArgs(msgFile, tmp, a.model, a.args), env: append(baseEnv(req.Env), "COLUMNS=1000"),
		line: s.line, maxLine: aiderMaxLine, stderrTail: aiderStderrTail, noStdin: true})
	for p := range aiderCaches(dir) {
		if !caches[p] {
			_ = os.RemoveAll(p) // aider's cache, made by this run: not the model's work
		}
	}
	s.end()
	return a.outcome(res, s, readAiderHistory(history), stderr)
}

// aiderStream reads aider's plain-text stdout, which mixes aider's own
// lines with the model's replies. Only lines in aider's exact formats are
// used: the usage report, "Main model:", "Applied edit to", and the error
// lines aider prints for API failures (litellm.<Name>Error: …, followed by
// aider's explanation).
type aiderStream struct {
	onActivity func(string)

	model   string // from "Main model: X with …" (or "Model: X with …")
	reports int    // usage reports seen
	usage   Usage
	cost    float64 // the session figure of the last report with a cost
	hasCost bool
	pending []string // a report line waiting for its continuation

	errName string // the last API error's exception name, "" once a report follows it
	errText string
	errNote string // aider's explanation of it

	// limit holds aider's "has hit a token limit!" report: the model's
	// context window or its output limit was exhausted (aider prints no
	// API error line for it, and a usage report comes before it).
	limit      []string // the report's token lines ("Input tokens: ~9,120 of 8,192")
	limitHit   bool
	limitInput bool // aider's estimate of the request fills the context window
}

var (
	// aiderReport is aider's usage report, in one line or split by rich or
	// by aider itself (which puts the cost on a line of its own when there
	// are both cache writes and cache hits):
	// "Tokens: 12k sent, 3.1k cache write, 5.0k cache hit, 245 received. Cost: $0.04 message, $0.10 session."
	aiderReport = lazyRegexp(`^Tokens: ([\d.,]+[kKmM]?) sent(?:, ([\d.,]+[kKmM]?) cache write)?(?:, ([\d.,]+[kKmM]?) cache hit)?, ([\d.,]+[kKmM]?) received\.(?: Cost: \$([\d.]+) message, \$([\d.]+) session\.)?$`)
	aiderModel  = lazyRegexp(`^(?:Main )?[Mm]odel: (\S+) with `)
	aiderError  = lazyRegexp(`^litellm\.(\w+): ?(.*)$`)
	// aiderLimit opens aider's token-limit report (Coder.show_exhausted_error),
	// followed by "Input tokens: ~N of M", "Output tokens: ~N of M" and
	// "Total tokens: ~N of M" lines, each marked "-- possibly exceeded output
	// limit!" or "-- possibly exhausted context window!" where it applies.
	aiderLimit = lazyRegexp(`^Model \S+ has hit a token limit!$`)
	// aiderNotes are aider's own explanations of API errors (aider/exceptions.py).
	aiderNotes = []string{
		"The API provider is not able to authenticate you.",
		"The API provider has rate limited you.",
		"The API provider's servers are down or overloaded.",
		"The API provider timed out without returning a response.",
		"The API provider has refused the request due to a safety policy",
	}
)

// line reads one line of aider's output: a usage report (perhaps split
// over lines), a token-limit report, the model, an edit, an API error and
// aider's note on it.
func (s *aiderStream) line(b []byte) {
	line := strings.TrimSpace(proc.Clean(b))
	if s.continueReport(line) {
		return
	}
	switch {
	case strings.HasPrefix(line, "Tokens: "):
		if !strings.Contains(line, "Cost: $") || !s.report(line) {
			s.pending = []string{line} // its cost may follow on the next line
		}
	case aiderLimit().MatchString(line):
		s.limitHit, s.limitInput, s.limit = true, false, nil
		s.activity("error: " + line)
	case s.limitHit && len(s.limit) < 3 && aiderLimitLine(line):
		s.limit = append(s.limit, capText(line, 200))
		s.limitInput = s.limitInput || (strings.HasPrefix(line, "Input tokens:") && strings.HasSuffix(line, "possibly exhausted context window!"))
	case aiderModel().MatchString(line):
		s.model = aiderModel().FindStringSubmatch(line)[1]
	case strings.HasPrefix(line, "Applied edit to "):
		s.activity("edited " + strings.TrimPrefix(line, "Applied edit to "))
	case aiderError().MatchString(line):
		m := aiderError().FindStringSubmatch(line)
		s.errName, s.errText, s.errNote = m[1], capText(m[2], 2000), ""
		s.activity("error: " + claudeFirstLine(line, 160))
	case s.errName != "" && aiderNote(line):
		s.errNote = line
	case strings.HasPrefix(line, "Retrying in ") && s.errName != "":
		s.activity(line)
	}
}

// continueReport adds line to a usage report left pending, and reports
// whether it took the line: when a report split over lines is whole or
// goes on. A report without a cost is read as it is, and line is left to
// be read as something else.
func (s *aiderStream) continueReport(line string) bool {
	if len(s.pending) == 0 {
		return false
	}
	cand := strings.Join(append(s.pending, line), " ")
	if strings.Contains(cand, "Cost: $") && s.report(cand) {
		s.pending = nil
		return true
	}
	if len(s.pending) < 3 && (strings.HasPrefix(line, "Cost: $") || !aiderReport().MatchString(strings.Join(s.pending, " "))) {
		s.pending = append(s.pending, line) // a report split over lines
		return true
	}
	s.end() // a report without a cost; line is something else
	return false
}

// aiderLimitLine reports whether line is one of the counts of a
// token-limit report.
func aiderLimitLine(line string) bool {
	return strings.HasPrefix(line, "Input tokens: ~") || strings.HasPrefix(line, "Output tokens: ~") || strings.HasPrefix(line, "Total tokens: ~")
}

// aiderNote reports whether line is one of aider's explanations of an API
// error.
func aiderNote(line string) bool {
	return slices.ContainsFunc(aiderNotes, func(n string) bool { return strings.HasPrefix(line, n) })
}

// report reads a usage report; false if line is not one. A report means a
// successful model call: an error before it was recovered from.
func (s *aiderStream) report(line string) bool {
	m := aiderReport().FindStringSubmatch(line)
	if m == nil {
		return false
	}
	// "sent" includes cache writes; cache hits are counted apart.
	s.reports++
	s.usage.Input += aiderTokens(m[1])
	s.usage.CachedInput += aiderTokens(m[3])
	s.usage.Output += aiderTokens(m[4])
	if m[6] != "" {
		if v, err := strconv.ParseFloat(m[6], 64); err == nil {
			s.cost, s.hasCost = v, true
		}
	}
	s.errName, s.errText, s.errNote = "", "", ""
	s.limitHit, s.limitInput, s.limit = false, false, nil
	msg := "tokens: " + m[1] + " sent, " + m[4] + " received"
	if m[6] != "" {
		msg += ", $" + m[6] + " so far"
	}
	s.activity(msg)
	return true
}

// end reads a report left pending (one without a cost) and forgets it.
func (s *aiderStream) end() {
	if len(s.pending) > 0 {
		s.report(strings.Join(s.pending, " "))
		s.pending = nil
	}
}

func (s *aiderStream) activity(msg string) {
	if s.onActivity != nil && msg != "" {
		s.onActivity(msg)
	}
}

// aiderTokens reads aider's token counts: "245", "1,234", "3.1k", "12k", "1.2M".
func aiderTokens(s string) int64 {
	s = strings.ReplaceAll(s, ",", "")
	if s == "" {
		return 0
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'k', 'K':
		mult, s = 1e3, s[:len(s)-1]
	case 'm', 'M':
		mult, s = 1e6, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1e15 {
		return 0
	}
	return int64(v*mult + 0.5)
}

// aiderHistory is what the LLM history file tells: the number of model
// responses and the last one.
type aiderHistory struct {
	responses int
	last      string
}

// readAiderHistory reads aider's LLM history file: blocks that start with
// "TO LLM <time>" or "LLM RESPONSE <time>", each content line prefixed by
// its role ("ASSISTANT …"), so a header cannot be forged by content.
func readAiderHistory(path string) aiderHistory {
	var h aiderHistory
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	var (
		cur     strings.Builder
		inReply bool
	)
	w := proc.NewLineWriter(aiderMaxLine, func(b []byte) { h.line(b, &cur, &inReply) })
	_, _ = io.Copy(w, f)
	w.Flush()
	if inReply {
		h.last = cur.String()
	}
	return h
}

var aiderHistoryHeader = lazyRegexp(`^(TO LLM|LLM RESPONSE) \d{4}-\d{2}-\d{2}T`)

func (h *aiderHistory) line(b []byte, cur *strings.Builder, inReply *bool) {
	if m := aiderHistoryHeader().FindSubmatch(b); m != nil {
		if *inReply {
			h.last = cur.String()
		}
		*inReply = string(m[1]) == "LLM RESPONSE"
		cur.Reset()
		if *inReply {
			h.responses++
		}
		return
	}
	if !*inReply {
		return
	}
	text, ok := bytes.CutPrefix(b, []byte("ASSISTANT"))
	if !ok {
		return
	}
	text = bytes.TrimPrefix(text, []byte(" "))
	if cur.Len()+len(text)+1 > aiderMaxFinal {
		return
	}
	if cur.Len() > 0 {
		cur.WriteByte('\n')
	}
	cur.Write(text)
}

// outcome turns a finished run into an Outcome.
func (a *aider) outcome(res proc.Result, s *aiderStream, h aiderHistory, stderr string) Outcome {
	return build(res, aiderInstallHint, func(o *Outcome) { a.figures(o, s, h, res) }, func(o *Outcome) { a.classify(o, s, stderr) })
}

func (a *aider) figures(o *Outcome, s *aiderStream, h aiderHistory, res proc.Result) {
	o.FinalMessage = strings.TrimSpace(h.last)
	o.Steps = h.responses
	if o.Steps == 0 {
		o.Steps = s.reports
	}
	o.Usage = s.usage
	switch {
	case s.hasCost:
		o.Cost, o.CostKnown = s.cost, true
	case o.Usage != (Usage{}):
		model := a.model
		if model == "" {
			model = s.model
		}
		o.Cost, o.CostKnown = a.prices.Cost(model, o.Usage)
	case o.Steps == 0 && !res.TimedOut && !res.Inactive && !res.Canceled:
		o.CostKnown = true // no model call was made
	}
}

// classify sets ErrKind, Err, Hint and ResetAt. aider exits 0 even when the
// model could not be reached, so an API error line not followed by a usage
// report is a failed run; so is a non-zero exit.
func (a *aider) classify(o *Outcome, s *aiderStream, stderr string) {
	f := failure{now: a.now()}
	switch {
	case s.limitHit:
		o.Err = "aider: the model hit a token limit"
		if len(s.limit) > 0 {
			o.Err += " (" + strings.Join(s.limit, "; ") + ")"
		}
		f.code = aiderOutputLimit
		if s.limitInput {
			f.code = aiderContextWindow
		}
	case s.errName == "":
		if o.ExitCode == 0 {
			return
		}
		o.Err = fmt.Sprintf("aider exited with status %d", o.ExitCode)
		if t := strings.TrimSpace(stderr); t != "" {
			o.Err += ": " + lastLines(t, 10)
		}
		f.stderr = stderr
	default:
		o.Err = "aider: " + s.errName + ": " + s.errText
		if s.errNote != "" {
			o.Err += " (" + s.errNote + ")"
		}
		f.code = s.errName
		f.text = s.errName + " " + s.errText
		f.msg = f.text
	}
	aiderErrors.apply(o, f)
}

// The codes of aider's token-limit report (aider prints no API error for
// it): by aider's own estimate the request fills the model's context
// window ("possibly exhausted context window!"), or it fits and the answer
// was cut at the output limit (or the server counted otherwise).
const (
	aiderContextWindow = "architect:context-window"
	aiderOutputLimit   = "architect:output-limit"
)

var aiderErrors = errTable{
	// The next iteration's request would fill the window too.
	{code: []string{aiderContextWindow}, kind: ErrFatal, hint: "the prompt, aider's repository map and the files in its chat exceed the model's context window: " +
		"use a model with a larger one, or a smaller map (--agent-arg --map-tokens --agent-arg 512)"},
	{code: []string{aiderOutputLimit}, kind: ErrTransient}, // a fresh attempt may fit
	{stderr: []string{"unrecognized arguments", "error: argument"},
		kind: ErrFatal, hint: "aider refused its command line: check the flags given with --agent-arg"},
	planLimit,
	// A rate limit, as for every agent: waited out, for as long as the
	// provider's message asks when it says.
	{code: []string{"RateLimitError"}, kind: ErrUsageLimit, reset: retryReset},
	{code: []string{"AuthenticationError", "PermissionDeniedError"},
		kind: ErrFatal, hint: "check the API key aider uses for this model (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …)"},
	{code: []string{"NotFoundError"}, exact: []string{"LLM Provider NOT provided"},
		text: []string{"model_not_found", "not_found_error", "does not exist", "invalid model"},
		kind: ErrFatal, hint: "check --model: aider wants a litellm model name, e.g. anthropic/claude-sonnet-4-5 (`aider --list-models NAME` searches them)"},
	billing(providerBillingHint),
	outage,
}
