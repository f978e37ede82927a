package report

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// CandidateState is a finished candidate's state in words: passed (its
// checks pass and it declared completion), incomplete (they pass, it did
// not declare), failed, stopped (another succeeded first), timed out, or
// error (its agent failed before any check ran).
func CandidateState(c runlog.Candidate) string {
	switch {
	case c.Stopped:
		return "stopped"
	case c.TimedOut:
		return "timed out"
	case c.Success:
		return "passed"
	case c.Error != nil && c.ChecksTotal == 0:
		return "error"
	case c.ChecksTotal > 0 && c.ChecksPassed == c.ChecksTotal:
		return "incomplete"
	}
	return "failed"
}

// CandidateTranscript is where a candidate's transcript folder is, from
// the workspace: its record names it from the state folder.
func CandidateTranscript(c runlog.Candidate) string {
	if c.Transcript == "" {
		return ""
	}
	return filepath.Join(runlog.StateDir, c.Transcript)
}

// candView is one candidate of an iteration on the page.
type candView struct {
	ID               string // its anchor: candidate-ITERATION-N
	N                int
	Agent            string
	State, Class     string // Class: pass, timeout, fail, stop: its colour (check-CLASS)
	Kept             bool
	Why              string
	Checks           string // "3/5"
	Failing          string
	Cost, Time, Diff string
	Tokens, Error    string
	Transcript       string
	Completion       string
}

// candidateViews are an iteration's candidates for the page, in their
// numbers' order as recorded.
func candidateViews(n int, cands []runlog.Candidate) []candView {
	var out []candView
	for _, c := range cands {
		v := candView{ID: fmt.Sprintf("candidate-%d-%d", n, c.N), N: c.N, Agent: c.Agent, State: CandidateState(c), Kept: c.Kept, Why: c.Why,
			Cost: costOf(c.Cost), Time: dur(c.Duration), Transcript: CandidateTranscript(c), Completion: c.CompletionSignal}
		if c.Model != "" {
			v.Agent += " (" + c.Model + ")"
		}
		switch v.State {
		case "passed":
			v.Class = "pass"
		case "incomplete", "timed out":
			v.Class = "timeout" // the page's yellow
		case "stopped":
			v.Class = "stop"
		default:
			v.Class = "fail"
		}
		v.Checks = "-"
		if c.ChecksTotal > 0 {
			v.Checks = fmt.Sprintf("%d/%d", c.ChecksPassed, c.ChecksTotal)
		}
		v.Failing = strings.Join(c.Failing, ", ")
		if c.DiffLines > 0 || c.DiffStat != "" {
			v.Diff = strconv.Itoa(c.DiffLines) + " lines"
		}
		if t := c.Tokens; t != nil {
			v.Tokens = fmt.Sprintf("%s in (%s cached), %s out", count(t.Input), count(t.CachedInput), count(t.Output))
		}
		if c.Error != nil {
			v.Error = *c.Error
		}
		out = append(out, v)
	}
	return out
}

// keptText says which of a round's candidates was kept: "#2 of 3 (codex)".
func keptText(cands []runlog.Candidate) string {
	for _, c := range cands {
		if c.Kept {
			s := fmt.Sprintf("#%d of %d", c.N, len(cands))
			if c.Agent != "" {
				s += " (" + c.Agent + ")"
			}
			return s
		}
	}
	return fmt.Sprintf("none of %d", len(cands))
}
