package cli

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/tui"
	"github.com/architect-dev/architect/usererr"
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

// pickCandidate makes show print candidate k of the iteration's round:
// its record, and its own folder for the transcript, diff, checks and
// output.
func (it *shownIteration) pickCandidate(k int) error {
	if k < 1 {
		return &usererr.Error{Msg: fmt.Sprintf("--candidate %d: candidates are numbered from 1", k), Hint: fmt.Sprintf("architect show %d --candidate 1", it.n)}
	}
	if it.rec == nil {
		return &usererr.Error{Msg: fmt.Sprintf("--candidate %d: iteration %d is not recorded yet: its candidates are known once its round ends", k, it.n), Hint: "wait for the round to end, or see `architect status`"}
	}
	cands := it.rec.Candidates
	if len(cands) == 0 {
		return &usererr.Error{Msg: fmt.Sprintf("--candidate %d: iteration %d ran no candidates (it was not a round of --candidates)", k, it.n), Hint: fmt.Sprintf("architect show %d", it.n)}
	}
	for i := range cands {
		if cands[i].N != k {
			continue
		}
		it.cand = &cands[i]
		if cands[i].Transcript != "" {
			it.dir = filepath.Join(it.ws, runlog.StateDir, cands[i].Transcript)
		} else {
			it.dir = filepath.Join(it.ws, runlog.StateDir, runlog.TranscriptDir(it.n), "candidate-"+strconv.Itoa(k))
		}
		return nil
	}
	return &usererr.Error{Msg: fmt.Sprintf("--candidate %d: iteration %d ran %d candidates, numbered from 1", k, it.n, len(cands)), Hint: fmt.Sprintf("architect show %d --candidate %d", it.n, cands[0].N)}
}

// checksRecord is the record whose check results show lists: the
// iteration's, none for a candidate (its folder's files say).
func (it *shownIteration) checksRecord() *runlog.Iteration {
	if it.cand != nil {
		return nil
	}
	return it.rec
}

// candidateSummary heads show's page of one candidate: which of the
// round it was, and its line as the iteration's summary gives it.
func candidateSummary(n int, it *runlog.Iteration, c *runlog.Candidate) string {
	head := fmt.Sprintf("iteration %d, candidate %d of %d", n, c.N, len(it.Candidates))
	if c.Kept {
		head += ": kept, its change is the iteration's"
	}
	text := candidatesText([]runlog.Candidate{*c})
	_, lines, _ := strings.Cut(text, "\n") // without the round's heading
	return head + "\n" + lines
}

// roundLine is what status says of a run's last round: "iteration 2,
// candidate 2 (codex) kept of 3; #1: fewer checks passing…; #3: stopped…".
func roundLine(n int, cands []runlog.Candidate) string {
	kept := fmt.Sprintf("none kept of %d", len(cands))
	var lost []string
	for _, c := range cands {
		switch {
		case c.Kept && c.Agent != "":
			kept = fmt.Sprintf("candidate %d (%s) kept of %d", c.N, c.Agent, len(cands))
		case c.Kept:
			kept = fmt.Sprintf("candidate %d kept of %d", c.N, len(cands))
		case c.Why != "":
			lost = append(lost, fmt.Sprintf("#%d: %s", c.N, firstLineOf(c.Why)))
		}
	}
	line := fmt.Sprintf("iteration %d, %s", n, kept)
	if len(lost) > 0 {
		line += "; " + strings.Join(lost, "; ")
	}
	return line
}

// candidateSections are the view's detail sections of a round's
// candidates, one each: its line, then its transcript from its folder.
func candidateSections(ws string, n int, it *runlog.Iteration) []tui.Section {
	var out []tui.Section
	for _, c := range it.Candidates {
		shown := &shownIteration{ws: ws, n: n, rec: it}
		if shown.pickCandidate(c.N) != nil {
			continue
		}
		out = append(out, tui.Section{Title: "Candidate " + strconv.Itoa(c.N), Text: string(shown.text(showOptions{}))})
	}
	return out
}
