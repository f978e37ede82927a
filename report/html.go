package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/checks"
	"github.com/architect-dev/architect/loop"
)

//go:embed report.html.tmpl
var pageText string

// page is parsed on first use, keeping it out of architect's start-up time.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(pageText))
})

// page is the view of a Run the template renders.
type view struct {
	Title     string
	Generated string
	Summary   []field
	Outcome   string // success, failure or running: the colour of the banner
	Headline  string
	Detail    string
	Bars      []bar
	Checks    []string
	Grid      [][]cell // one row per check, one cell per iteration
	Iters     []iterView
}

type field struct {
	Name, Value string
	Wide        bool // a whole row of the summary
}

type bar struct {
	N                 int
	AgentW, ChecksW   float64 // out of 1000
	Agent, Checks     string
	Total, Cost, Tone string
}

type cell struct {
	N            int
	Class, Label string
	Title        string
}

type iterView struct {
	N                 int
	Open              bool
	Tone, Verdict     string
	Meta              []field
	Error             string
	FinalMessage      string
	Failing           []checks.Result
	DiffStat, Prompt  string
	Duration, Cost    string
	Passing, AllCheck int
}

// Write renders the page for r.
func Write(w io.Writer, r *Run, now time.Time) error {
	return page().Execute(w, build(r, now))
}

// WriteFile renders the page for r into path (its folder must exist).
func WriteFile(path string, r *Run, now time.Time) error {
	var b strings.Builder
	if err := Write(&b, r, now); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	// Private like everything in .architect/ (it quotes prompts, messages
	// and check output); readable by all where the user puts it elsewhere.
	mode := os.FileMode(0o644)
	if filepath.Base(filepath.Dir(path)) == loop.StateDir {
		mode = 0o600
	}
	if err := os.WriteFile(tmp, []byte(b.String()), mode); err != nil {
		return err
	}
	_ = os.Chmod(tmp, mode) // an old file of the same name kept its mode
	return os.Rename(tmp, path)
}

func build(r *Run, now time.Time) view {
	st := r.State
	v := view{
		Title:     "architect report: " + filepath.Base(st.Workspace),
		Generated: now.Format("2006-01-02 15:04:05 MST"),
		Checks:    r.Checks,
	}
	v.Outcome, v.Headline, v.Detail = outcome(r)
	cost := st.Cost().String()
	total := st.Elapsed
	if r.Result != nil && r.Result.TotalDuration > total {
		total = r.Result.TotalDuration
	}
	branch := st.Branch
	if branch == "" {
		branch = "(none: ran in the workspace)"
	}
	mode := st.Config.Mode
	if mode == "" {
		mode = "default"
	}
	stop := st.StopReason
	if stop == "" {
		stop = "(still running)"
	}
	v.Summary = []field{
		{"Outcome", v.Headline, false},
		{"Stop reason", stop, false},
		{"Iterations", fmt.Sprintf("%d of %d", len(r.Iterations), st.MaxIterations), false},
		{"Total cost", cost, false},
		{"Total time", dur(total), false},
		{"Branch", branch, false},
		{"Agent", r.Agent, false},
		{"Mode", mode, false},
		{"Started", when(st.StartedAt), false},
		{"Workspace", st.Workspace, true},
	}

	longest := 0.0
	for _, it := range r.Iterations {
		longest = math.Max(longest, math.Max(it.Duration, it.AgentDuration+it.ChecksDuration))
	}
	v.Grid = make([][]cell, len(r.Checks))
	for ci, name := range r.Checks {
		for _, it := range r.Iterations {
			v.Grid[ci] = append(v.Grid[ci], gridCell(name, it))
		}
	}
	for idx, it := range r.Iterations {
		tone, verdict := iterVerdict(it)
		b := bar{N: it.Iteration, Agent: dur(it.AgentDuration), Checks: dur(it.ChecksDuration),
			Total: dur(it.Duration), Cost: costOf(it.Cost), Tone: tone}
		if longest > 0 {
			b.AgentW = math.Round(it.AgentDuration/longest*1000*10) / 10
			b.ChecksW = math.Round(it.ChecksDuration/longest*1000*10) / 10
		}
		v.Bars = append(v.Bars, b)

		iv := iterView{N: it.Iteration, Open: idx == len(r.Iterations)-1, Tone: tone, Verdict: verdict,
			FinalMessage: it.FinalMessage, DiffStat: it.DiffStat, Prompt: r.Prompts[it.Iteration],
			Duration: dur(it.Duration), Cost: costOf(it.Cost), AllCheck: len(it.CheckResults)}
		for _, c := range it.CheckResults {
			if c.Passed {
				iv.Passing++
			} else {
				iv.Failing = append(iv.Failing, c)
			}
		}
		if it.Error != nil {
			iv.Error = *it.Error
		}
		iv.Meta = []field{
			{"Started", when(it.StartedAt), false},
			{"Agent", fmt.Sprintf("%s, exit %d, %d steps", dur(it.AgentDuration), it.ExitCode, it.StepsTaken), false},
			{"Checks", checksText(it, iv.Passing, iv.AllCheck), false},
			{"Completion", completion(it), false},
		}
		if it.Tokens != nil {
			iv.Meta = append(iv.Meta, field{"Tokens", fmt.Sprintf("%d in (%d cached), %d out", it.Tokens.Input, it.Tokens.CachedInput, it.Tokens.Output), false})
		}
		if it.Commit != "" {
			iv.Meta = append(iv.Meta, field{"Commit", shortHash(it.Commit), false})
		}
		v.Iters = append(v.Iters, iv)
	}
	return v
}

func outcome(r *Run) (tone, headline, detail string) {
	st := r.State
	detail = st.StopDetail
	switch {
	case st.Status == loop.StatusSucceeded && st.StopReason == loop.StopNoChecks:
		return "warn", "done, unchecked", "the agent declared completion; the run had no checks, so no check was run and nothing was verified"
	case st.Status == loop.StatusSucceeded:
		return "good", "success", "every check passed and the agent declared completion"
	case st.Active && loop.Running(st.Workspace):
		return "info", "running", "the run was still going when this report was written"
	case st.Status == loop.StatusWaiting || st.Status == loop.StatusPaused:
		return "info", st.Status, detail
	case st.StopReason == "":
		return "warn", "interrupted", "the run stopped without recording why (killed?); `architect loop --resume` continues it"
	}
	return "bad", "no success", detail
}

func iterVerdict(it loop.Iteration) (tone, verdict string) {
	switch {
	case it.Interrupted != "":
		return "warn", "interrupted (" + strings.ReplaceAll(it.Interrupted, "_", " ") + ")"
	case it.AllChecksPassed && it.CompletionSignal != "":
		return "good", "success"
	case it.AgentTimedOut:
		return "warn", "agent timed out"
	case it.Error != nil:
		return "bad", "agent error"
	case it.AllChecksPassed:
		return "warn", "checks pass, not complete"
	}
	return "bad", "checks failing"
}

// checksText says how the iteration's checks went, or why none ran.
func checksText(it loop.Iteration, passing, all int) string {
	switch {
	case it.Interrupted != "":
		return "not run: the iteration was interrupted"
	case all == 0:
		return "none run"
	}
	return fmt.Sprintf("%d/%d passing in %s", passing, all, dur(it.ChecksDuration))
}

func completion(it loop.Iteration) string {
	switch {
	case it.CompletionSignal != "":
		return "declared (" + it.CompletionSignal + ")"
	case it.CompletionTagFound:
		return "tag found"
	}
	return "not declared"
}

func gridCell(name string, it loop.Iteration) cell {
	for _, c := range it.CheckResults {
		if c.Name != name {
			continue
		}
		title := fmt.Sprintf("iteration %d: %s: %s in %s", it.Iteration, name, status(c), dur(c.Duration))
		switch {
		case c.Passed:
			return cell{N: it.Iteration, Class: "pass", Label: "✓", Title: title}
		case c.TimedOut:
			return cell{N: it.Iteration, Class: "timeout", Label: "⏱", Title: title}
		}
		return cell{N: it.Iteration, Class: "fail", Label: "✗", Title: title}
	}
	return cell{N: it.Iteration, Class: "none", Label: "–", Title: fmt.Sprintf("iteration %d: %s did not run", it.Iteration, name)}
}

func status(c checks.Result) string {
	if c.Passed {
		return "passed"
	}
	return c.Status()
}

func costOf(c *float64) string {
	if c == nil {
		return "cost unknown"
	}
	return money(*c)
}

func money(f float64) string {
	if f != 0 && f < 0.01 {
		return fmt.Sprintf("$%.4f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}

// dur prints seconds compactly: 850ms, 12.3s, 3m05s, 1h02m.
func dur(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// when prints an RFC 3339 time for people.
func when(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
