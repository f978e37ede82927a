package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/architect-dev/architect/proc"
)

const ampInstallHint = "install Amp (npm install -g @ampcode/cli) or point --agent-bin at it"

// ampPriceKey names the user price that prices Amp's tokens when its
// stream does not say which model produced them (it usually does not).
const ampPriceKey = "amp"

// amp drives Sourcegraph's Amp headless: one `amp --execute --stream-json`
// process per iteration, the prompt on stdin. Its output is Claude Code's
// stream-json format, read by the same parser as Claude's (claudeStream);
// Amp's differences are handled here: assistant messages carry usage but
// neither id nor model, the result line has no cost, and an error result
// says what went wrong in "error".
type amp struct{ cliAdapter }

// ampArgs is the command line after the executable's name. Amp picks its
// models itself; --model selects its agent mode (e.g. smart, rush, or
// low…ultra in newer versions). The prompt goes on stdin, as Amp's SDKs
// send it: a prompt argument would have to follow --execute directly.
func ampArgs(mode string, extra []string) []string {
	return cmdline([]string{"--execute", "--stream-json", "--dangerously-allow-all"}, "--mode", mode, extra)
}

// CheckPrices implements PriceChecker: Amp's stream reports tokens, but
// neither a cost nor (usually) the model, so its runs are priced with the
// user's price named "amp".
func (a *amp) CheckPrices() error {
	if _, ok := a.prices.user(ampPriceKey); ok {
		return nil
	}
	return fmt.Errorf("neither the cost of an Amp run nor its model is reported: architect prices Amp's tokens with the price named %q under prices:, and there is none", ampPriceKey)
}

func (a *amp) Run(ctx context.Context, req Request) Outcome {
	s := newAmpStream(req.Dir, req.OnActivity)
	res, stderr := a.run(ctx, req, cliRun{args: ampArgs(a.model, a.args), line: s.line, toFile: "architect-amp-*.jsonl"})
	return a.outcome(res, s, stderr)
}

// ampStream is Claude's stream parser plus what Amp's format adds.
type ampStream struct {
	claudeStream

	ampUsage    Usage  // summed over assistant messages
	ampMessages int    // assistant messages (by id when Amp gives one)
	ampLastID   string // the id of the last one, when Amp gives ids
	resultErr   string // the error result's "error"
	notes       notes  // non-JSON stdout lines, for errors
}

func newAmpStream(dir string, onActivity func(string)) *ampStream {
	return &ampStream{claudeStream: claudeStream{dir: dir, onActivity: onActivity}}
}

func (s *ampStream) line(b []byte) {
	s.claudeStream.line(b)
	b = bytes.TrimSpace(b)
	if s.notes.plain(b) {
		return
	}
	f, _ := claudeFields(b)
	var typ string
	if !claudeField(f, "type", &typ) {
		return
	}
	switch typ {
	case "assistant":
		var msg struct {
			ID    string       `json:"id"`
			Model string       `json:"model"`
			Usage *claudeUsage `json:"usage"`
		}
		if !claudeField(f, "message", &msg) || msg.Model == "<synthetic>" {
			return
		}
		if msg.ID != "" && msg.ID == s.ampLastID {
			return // one message split over several lines, as Claude Code does
		}
		s.ampLastID = msg.ID
		s.ampMessages++
		if msg.Usage != nil {
			s.ampUsage.add(msg.Usage.usage())
		}
	case "result":
		var e string
		if claudeField(f, "error", &e) {
			s.resultErr = e
		} else {
			var v json.RawMessage
			if claudeField(f, "error", &v) {
				s.resultErr = string(v)
			}
		}
	}
}

// outcome turns a finished run into an Outcome.
func (a *amp) outcome(res proc.Result, s *ampStream, stderr string) Outcome {
	return build(res, ampInstallHint, func(o *Outcome) { a.figures(o, s, res) }, func(o *Outcome) { a.classify(o, s, stderr) })
}

func (a *amp) figures(o *Outcome, s *ampStream, res proc.Result) {
	r := s.result
	o.FinalMessage = s.finalText()
	o.Steps = s.ampMessages
	if r != nil && r.NumTurns > 0 {
		o.Steps = r.NumTurns
	}
	o.Usage = s.ampUsage
	if r != nil && r.Usage != (Usage{}) && !s.truncated {
		o.Usage = r.Usage
	}
	switch {
	case r != nil && r.HasCost && !s.truncated:
		o.Cost, o.CostKnown = r.Cost, true
	case o.Usage != (Usage{}):
		o.Cost, o.CostKnown = a.prices.Cost(s.model, o.Usage)
		if !o.CostKnown {
			o.Cost, o.CostKnown = a.prices.userCost(ampPriceKey, o.Usage)
		}
	case o.Steps == 0 && !res.TimedOut && !res.Inactive && !res.Canceled:
		o.CostKnown = true // it stopped before any answer from the model
	}
}

// classify sets ErrKind, Err and Hint from the error result, Amp's own
// error messages (plain text on stdout or stderr) and the exit status;
// never from tool results.
func (a *amp) classify(o *Outcome, s *ampStream, stderr string) {
	r := s.result
	if r != nil && !r.IsError && o.ExitCode == 0 {
		return
	}
	notes := s.notes.String()
	text := cmp.Or(s.resultErr, r.errorText(), r.reasons(), s.apiErrorText,
		lastLines(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr), "Error: ")), 10), lastLines(notes, 10))
	o.Err = runErr("amp", capText(text, 2000), o.ExitCode, r != nil)
	ampErrors.apply(o, failure{text: text + "\n" + stderr + "\n" + notes, msg: text, now: a.now()})
}

// ampErrors reads the error result and Amp's plain-text messages.
var ampErrors = errTable{
	claudeLimit,
	{text: []string{"out of free credits", "out of credits", "insufficient credit", "insufficient balance", "usage limit"},
		kind: ErrUsageLimit, hint: "add credits to the Amp account (ampcode.com/settings), or wait for the free daily grant"},
	{text: []string{"no api key found", "login failed", "not logged in", "unauthorized", "invalid api key", "invalid access token", "authentication"},
		kind: ErrFatal, hint: "set AMP_API_KEY to an Amp access token (ampcode.com/settings), or run amp login"},
	refusedArgs("Amp refused its command line: check the flags given with --agent-arg (and that --model names an Amp mode)"),
	{text: []string{"invalid mode", "unknown mode", "mode not found"},
		kind: ErrFatal, hint: "check --model: for Amp it selects the agent mode (e.g. smart or rush)"},
	outage,
}
