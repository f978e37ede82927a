package cli

import (
	"fmt"
	"strings"

	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
)

// candidatesText is what show says of an iteration's round (--candidates):
// each candidate with its agent, state, checks, cost and time, the kept
// one marked, why each other lost, what failed, and its transcript
// folder. It is "" for an iteration without candidates.
func candidatesText(cands []runlog.Candidate) string {
	if len(cands) == 0 {
		return ""
	}
	kept := "none kept"
	for _, c := range cands {
		if c.Kept {
			kept = fmt.Sprintf("#%d kept", c.N)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "candidates: %d at once, %s (the cost above is their sum)\n", len(cands), kept)
	for _, c := range cands {
		agent := c.Agent
		if c.Model != "" {
			agent += " (" + c.Model + ")"
		}
		state := report.CandidateState(c)
		mark := "✗"
		switch {
		case c.Kept:
			mark, state = "★", "kept, "+state
		case state == "passed" || state == "incomplete":
			mark = "✓"
		case state == "stopped":
			mark = "■"
		}
		checks := "no checks ran"
		if c.ChecksTotal > 0 {
			checks = fmt.Sprintf("%d/%d checks passing", c.ChecksPassed, c.ChecksTotal)
		}
		cost := "cost unknown"
		if c.Cost != nil {
			cost = fmt.Sprintf("$%.4f", *c.Cost)
		}
		fmt.Fprintf(&b, "  %s #%d %s: %s · %s · %s · %.1fs", mark, c.N, agent, state, checks, cost, c.Duration)
		if c.DiffLines > 0 {
			fmt.Fprintf(&b, " · %d lines changed", c.DiffLines)
		}
		if c.Tokens != nil {
			fmt.Fprintf(&b, " · %d tokens in (%d cached), %d out", c.Tokens.Input, c.Tokens.CachedInput, c.Tokens.Output)
		}
		b.WriteString("\n")
		if c.CompletionSignal != "" {
			fmt.Fprintf(&b, "      completion: declared (%s)\n", c.CompletionSignal)
		}
		if !c.Kept && c.Why != "" {
			fmt.Fprintf(&b, "      not kept: %s\n", c.Why)
		}
		if len(c.Failing) > 0 {
			fmt.Fprintf(&b, "      failing: %s\n", strings.Join(c.Failing, ", "))
		}
		if c.Error != nil {
			fmt.Fprintf(&b, "      agent error: %s\n", firstLineOf(*c.Error))
		}
		if t := report.CandidateTranscript(c); t != "" {
			fmt.Fprintf(&b, "      transcript: %s\n", t)
		}
	}
	return b.String()
}

// firstLineOf is s up to its first line end.
func firstLineOf(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
