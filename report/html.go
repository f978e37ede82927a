package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/architect-dev/architect/runlog"
)

//go:embed report.html.tmpl
var pageText string

//go:embed style.css
var styleText string

// page is parsed on first use, keeping it out of architect's start-up time.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{"css": css}).Parse(pageText))
})

func css() template.CSS { return template.CSS(styleText) }

// What the page shows of each iteration's texts, at most: enough to read
// what happened, while 300 iterations stay a page a browser opens at once.
// The whole texts are in the run's .architect/ folder.
const (
	promptLimit     = 12 << 10
	outputLimit     = 8 << 10
	diffLimit       = 24 << 10
	transcriptLimit = 24 << 10
	runDiffLimit    = 256 << 10
)

// groupSize: past this many iterations, the list is cut into groups of
// this many, each collapsible (the last open).
const groupSize = 50

// view is the page the template renders.
type view struct {
	Title      string
	Generated  string
	Workspace  string
	Task       template.HTML
	TaskFrom   string
	Summary    []field
	Outcome    string // good, bad, warn, info: the colour of the banner
	Headline   string
	Detail     string
	Count      int
	Timeline   template.HTML
	Cost       template.HTML
	CostTop    string
	CostGaps   bool // some iteration's cost is unknown
	Budget     string
	Durations  template.HTML
	DurTop     string
	Passing    template.HTML
	NChecks    int
	Diff       template.HTML
	DiffTop    string
	DiffOwn    bool // the diff chart shows each iteration's own changes
	CheckRows  []checkRow
	Groups     []group
	OneGroup   bool
	FirstLabel string
	LastLabel  string
	// Notes are the notes of the person running the loop, with the
	// iteration whose prompt carried each.
	Notes []note
	// CostUnknown: no iteration's cost is known, so there is no chart.
	CostUnknown bool
	// XLabels name each iteration under its mark when there are few
	// (XEach); else the first and the last, at the edges.
	XLabels []string
	XEach   bool
	// The whole run's change: its diff stat and diff (what merge brings in).
	RunStat     string
	RunDiff     []diffFile
	RunDiffNote string
	RunDiffCut  string
	RunTarget   string // what the whole run's change is
}

type note struct {
	Iteration int
	Text      string
}

type field struct {
	Name, Value string
	Wide        bool // a whole row of the summary
}

type cell struct {
	N            int
	Class, Title string
}

type checkRow struct {
	Name   string
	Strip  template.HTML
	Passed int
	Ran    int
}

type group struct {
	Label string
	Open  bool
	Iters []iterView
}

type iterView struct {
	N             int
	Open          bool
	Tone, Verdict string
	Summary       string
	Meta          []field
	Error         string
	FinalMessage  string
	Plan          string // the planners' plan (roles:), as the executor got it
	Checks        []checkView
	Diff          []diffFile
	DiffNote      string // what of the diff is cut
	DiffPreface   string // architect's note on what the diff is
	DiffStat      string
	Transcript    string
	TranscriptCut string
	Prompt        string
	PromptCut     string
	// Candidates are the round's candidates (--candidates); none without.
	Candidates []candView
}

type checkView struct {
	Name, Status, Class, Duration string
	Output, Cut                   string
	Open                          bool
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
	return writeAtomic(path, b.String())
}

// writeAtomic writes a page: private like everything in .architect/ (it
// quotes prompts, messages and check output), readable by all where the
// user puts it elsewhere.
func writeAtomic(path, text string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	mode := os.FileMode(0o644)
	if abs, err := filepath.Abs(path); err == nil && strings.Contains(abs, string(filepath.Separator)+runlog.StateDir+string(filepath.Separator)) {
		mode = 0o600
	}
	if err := os.WriteFile(tmp, []byte(text), mode); err != nil {
		return err
	}
	_ = os.Chmod(tmp, mode) // an old file of the same name kept its mode
	return os.Rename(tmp, path)
}

// File is where a run's report is written, in its .architect/ folder next
// to its result.
const File = "report.html"

// WriteRun writes the report of the run in workspace ws to
// .architect/report.html and returns its path.
func WriteRun(ws string, now time.Time) (string, error) {
	r, err := Load(ws)
	if err != nil {
		return "", err
	}
	path := filepath.Join(r.Dir, File)
	return path, WriteFile(path, r, now)
}

func build(r *Run, now time.Time) view {
	st := r.State
	n := len(r.Iterations)
	v := view{
		Title:     r.Title(),
		Generated: now.Format("2006-01-02 15:04:05 MST"),
		Workspace: st.Workspace,
		Count:     n,
		NChecks:   len(r.Checks),
	}
	task := r.Spec
	if task == "" {
		task = r.Config.Task
	}
	if task != "" {
		v.Task, v.TaskFrom = markdown(task), "task"
		if r.Config.Spec != "" {
			v.TaskFrom = "specification (" + filepath.Base(r.Config.Spec) + ")"
		}
	}
	for _, it := range r.Iterations {
		for _, t := range it.Notes {
			v.Notes = append(v.Notes, note{it.Iteration, t})
		}
	}
	if n > 0 {
		v.RunStat = r.Iterations[n-1].DiffStat
	}
	if r.RunDiff != "" {
		text, cut := head(r.RunDiff, runDiffLimit)
		v.RunDiff, v.RunDiffNote = diffFiles(text)
		v.RunDiffCut = cut
	}
	v.RunTarget = "since the run began"
	if st.Branch != "" {
		v.RunTarget = "what architect merge brings in from " + st.Branch
	}
	v.Outcome, v.Headline, v.Detail = outcome(r)
	v.Summary = summary(r, v.Headline)
	if n == 0 {
		return v
	}
	v.FirstLabel = fmt.Sprintf("#%d", r.Iterations[0].Iteration)
	v.LastLabel = fmt.Sprintf("#%d", r.Iterations[n-1].Iteration)
	// Few iterations: each named under its mark, in the middle of its
	// slot; many: the first and the last, at the edges.
	v.XLabels, v.XEach = []string{v.FirstLabel, v.LastLabel}, n < minSlots
	if v.XEach {
		v.XLabels = nil
		for _, it := range r.Iterations {
			v.XLabels = append(v.XLabels, fmt.Sprintf("#%d", it.Iteration))
		}
	}
	charts(&v, r)
	for ci, name := range r.Checks {
		row := checkRow{Name: name}
		cells := make([]cell, n)
		for i, it := range r.Iterations {
			cells[i] = gridCell(name, it)
			if cells[i].Class != "none" {
				row.Ran++
			}
			if cells[i].Class == "pass" {
				row.Passed++
			}
		}
		row.Strip = strip(cells, 24, fmt.Sprintf("check %d: %s, by iteration", ci+1, name))
		v.CheckRows = append(v.CheckRows, row)
	}
	var iters []iterView
	for idx, it := range r.Iterations {
		iters = append(iters, iterationView(r, it, idx == n-1))
	}
	if n <= groupSize+groupSize/5 {
		v.Groups, v.OneGroup = []group{{Open: true, Iters: iters}}, true
		return v
	}
	for start := 0; start < n; start += groupSize {
		end := min(start+groupSize, n)
		v.Groups = append(v.Groups, group{
			Label: fmt.Sprintf("Iterations %d–%d", iters[start].N, iters[end-1].N),
			Open:  end == n,
			Iters: iters[start:end],
		})
	}
	return v
}

func summary(r *Run, headline string) []field {
	st := r.State
	cost := st.Cost().String()
	if r.Config.MaxCost > 0 {
		cost += " of " + money(r.Config.MaxCost)
	}
	total := st.Elapsed
	if r.Result != nil && r.Result.TotalDuration > total {
		total = r.Result.TotalDuration
	}
	branch := st.Branch
	if branch == "" {
		branch = "(none: ran in the workspace)"
	}
	// The mode the state records, as `architect status --json` says it
	// (build when no --mode was given).
	mode := st.Mode
	if mode == "" {
		mode = r.Config.Mode
	}
	if mode == "" {
		mode = "default"
	}
	stop := st.StopReason
	if stop == "" {
		stop = "(still running)"
	}
	agent := r.Agent
	if r.Config.Model != "" {
		agent += " (" + r.Config.Model + ")"
	}
	var in, cached, out int64
	for _, it := range r.Iterations {
		if it.Tokens != nil {
			in, cached, out = in+it.Tokens.Input, cached+it.Tokens.CachedInput, out+it.Tokens.Output
		}
	}
	f := []field{
		{"Outcome", headline, false},
		{"Stop reason", stop, false},
		{"Iterations", fmt.Sprintf("%d of %d", len(r.Iterations), st.MaxIterations), false},
		{"Total cost", cost, false},
		{"Total time", dur(total), false},
		{"Agent", agent, false},
		{"Branch", branch, false},
		{"Mode", mode, false},
		{"Started", when(st.StartedAt), false},
	}
	if fc := lastLook(r); fc != nil {
		f = append(f, field{"Last look", fc.Text(), false})
	}
	if r.Result != nil && r.Result.Sandbox != "" {
		f = append(f, field{"Sandbox", strings.TrimPrefix(r.Result.Sandbox, "sandbox: "), false})
	}
	f = append(f, steering(r)...)
	f = append(f, runTests(r)...)
	if in+out > 0 {
		f = append(f, field{"Tokens", fmt.Sprintf("%s in (%s cached), %s out", count(in), count(cached), count(out)), false})
	}
	return append(f, field{"Workspace", st.Workspace, true})
}

// lastLook is the run's last look before a success: the result's, or the
// last iteration's that made one.
func lastLook(r *Run) *runlog.FinalCheck {
	if r.Result != nil && r.Result.FinalCheck != nil {
		return r.Result.FinalCheck
	}
	for i := len(r.Iterations) - 1; i >= 0; i-- {
		if fc := r.Iterations[i].FinalCheck; fc != nil {
			return fc
		}
	}
	return nil
}

func iterationView(r *Run, it runlog.Iteration, last bool) iterView {
	tone, verdict := iterVerdict(it)
	iv := iterView{N: it.Iteration, Open: last, Tone: tone, Verdict: verdict,
		FinalMessage: it.FinalMessage, Plan: it.Plan, DiffStat: it.DiffStat}
	passing := 0
	for ci, c := range it.CheckResults {
		cv := checkView{Name: c.Name, Duration: dur(c.Duration), Class: "pass", Status: "passed"}
		if c.Passed {
			passing++
		} else {
			cv.Class, cv.Status, cv.Open = "fail", status(c), true
			if c.TimedOut {
				cv.Class = "timeout"
			}
		}
		out := r.checkOutput(it.Iteration, ci, c)
		cv.Output = out
		iv.Checks = append(iv.Checks, cv)
	}
	iv.Summary = fmt.Sprintf("%d/%d checks · %s · %s", passing, len(it.CheckResults), dur(it.Duration), costOf(it.Cost))
	if add, del, ok := ownDiff(it); ok {
		iv.Summary += fmt.Sprintf(" · +%d −%d", add, del)
	}
	if it.Error != nil {
		iv.Error = *it.Error
	}
	if len(it.Candidates) > 0 {
		iv.Candidates = candidateViews(it.Iteration, it.Candidates)
		iv.Summary += " · kept " + keptText(it.Candidates)
	}
	iv.Meta = []field{
		{"Started", when(it.StartedAt), false},
		{"Agent", fmt.Sprintf("%s, exit %d, %d steps", dur(it.AgentDuration), it.ExitCode, it.StepsTaken), false},
		{"Checks", checksText(it, passing, len(it.CheckResults)), false},
		{"Cost", costOf(it.Cost), false},
		{"Completion", completion(it), false},
	}
	if len(it.Candidates) > 0 {
		iv.Meta = append(iv.Meta, field{"Candidates", fmt.Sprintf("%d at once; kept %s; cost is their sum", len(it.Candidates), keptText(it.Candidates)), false})
	}
	if it.FinalCheck != nil {
		iv.Meta = append(iv.Meta, field{"Last look", it.FinalCheck.Text(), false})
	}
	if it.Tokens != nil {
		iv.Meta = append(iv.Meta, field{"Tokens", fmt.Sprintf("%s in (%s cached), %s out", count(it.Tokens.Input), count(it.Tokens.CachedInput), count(it.Tokens.Output)), false})
	}
	if it.Commit != "" {
		iv.Meta = append(iv.Meta, field{"Commit", shortHash(it.Commit), false})
	}
	iv.Meta = append(iv.Meta, iterSteering(it)...)
	iv.Meta = append(iv.Meta, judgeFields(it)...)
	iv.Meta = append(iv.Meta, iterTests(it)...)
	if d := r.diff(it.Iteration); d != "" {
		text, cut := head(d, diffLimit)
		iv.Diff, iv.DiffPreface = diffFiles(text)
		iv.DiffNote = cut
	}
	iv.Transcript, iv.TranscriptCut = head(r.transcript(it.Iteration), transcriptLimit)
	iv.Prompt, iv.PromptCut = head(r.Prompts[it.Iteration], promptLimit)
	return iv
}
