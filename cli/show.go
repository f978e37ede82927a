package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/report"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type showOptions struct {
	dir, worktree                      string
	prompt, diff, checks, raw, noPager bool
	candidate                          int // a round's candidate to show instead of the kept one; 0: the iteration
}

func newShowCmd(e *env) *cobra.Command {
	var o showOptions
	c := &cobra.Command{
		Use:   "show [N] [-C DIR] [--worktree-name NAME] [--candidate K] [--prompt] [--diff] [--checks] [--raw]",
		Short: "print what an iteration said and did: its transcript",
		Long: `Prints iteration N of the run in the workspace (the last one by default,
the running one included): a summary, then the transcript of what the agent
said and did (messages, tool calls with their arguments, results, errors).
For a round of candidates (--candidates) the summary lists every candidate:
its state, checks, cost, the one kept, why each other lost, its transcript;
--candidate K shows candidate K instead (its transcript, --diff, --checks,
--raw from its own folder).
--prompt, --diff, --checks and --raw print instead the prompt it got, its
diff, each check's whole output, and the agent's own output stream as it
came. Everything comes from .architect/ (transcripts/iteration-N/).

On a terminal the text goes through a pager: $PAGER, else less; --no-pager
(or PAGER=cat) prints it.`,
		Example: `  architect show          # the last iteration
  architect show 3 --diff
  architect show 3 --candidate 2   # a round's candidate 2, kept or not
  architect show --worktree-name fix-auth --checks`,
		GroupID: groupControl,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &usererr.Error{Msg: fmt.Sprintf("expected at most one iteration number, got %d arguments", len(args)), Hint: "architect show 3"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			if len(args) == 1 {
				v, err := strconv.Atoi(args[0])
				if err != nil || v < 1 {
					return &usererr.Error{Msg: fmt.Sprintf("%q is not an iteration number", args[0]), Hint: "give a number from 1, or none for the last iteration: architect show 3"}
				}
				n = v
			}
			return runShow(e, n, o)
		},
	}
	fs := c.Flags()
	fs.StringVarP(&o.dir, "dir", "C", ".", "workspace `directory` (or the repository of a --worktree run)")
	fs.StringVar(&o.worktree, "worktree-name", "", "the run's worktree `NAME`")
	fs.BoolVar(&o.prompt, "prompt", false, "print the prompt the agent got")
	fs.BoolVar(&o.diff, "diff", false, "print the iteration's diff")
	fs.BoolVar(&o.checks, "checks", false, "print each check's whole output")
	fs.BoolVar(&o.raw, "raw", false, "print the agent's output stream as it came (its JSON lines)")
	fs.BoolVar(&o.noPager, "no-pager", false, "print, even on a terminal")
	fs.IntVar(&o.candidate, "candidate", 0, "show candidate `K` of the iteration's round (--candidates) instead of the kept one")
	_ = c.MarkFlagDirname("dir")
	_ = c.RegisterFlagCompletionFunc("worktree-name", completeWorktreeNames)
	return c
}

func runShow(e *env, n int, o showOptions) error {
	it, err := findIteration(o.dir, o.worktree, n)
	if err != nil {
		return err
	}
	if o.candidate != 0 {
		if err := it.pickCandidate(o.candidate); err != nil {
			return err
		}
	}
	return page(e, it.text(o), o.noPager)
}

// shownIteration is the iteration show prints: its number, its record
// (nil while it runs, or when it was not recorded) and its transcript
// folder.
type shownIteration struct {
	ws, dir string
	n       int
	rec     *runlog.Iteration
	running bool // the iteration is the one running now
	// cand is the round's candidate shown (--candidate), whose folder dir
	// is; nil: the iteration.
	cand *runlog.Candidate
}

// findIteration finds iteration n (0: the last) of the run in dir (or its
// worktree name).
func findIteration(dir, name string, n int) (*shownIteration, error) {
	ws, err := merge.FindRun(dir, name)
	if err != nil {
		return nil, err
	}
	st, err := runlog.ReadState(ws)
	if err != nil {
		return nil, err
	}
	its, err := report.ReadIterations(ws)
	if err != nil {
		return nil, err
	}
	running := runlog.Running(ws) && st.Iteration > len(its)
	last := len(its)
	if running {
		last = st.Iteration
	}
	if last == 0 {
		return nil, &usererr.Error{Msg: "the run in " + ws + " has no iteration yet", Hint: "wait for its first iteration, or see `architect status`"}
	}
	if n == 0 {
		n = last
	}
	if n > last {
		return nil, &usererr.Error{Msg: fmt.Sprintf("the run in %s has no iteration %d: it has %d", ws, n, last), Hint: "architect show " + strconv.Itoa(last)}
	}
	it := &shownIteration{ws: ws, dir: filepath.Join(ws, runlog.StateDir, runlog.TranscriptDir(n)), n: n, running: running && n == last}
	for i := range its {
		if its[i].Iteration == n {
			it.rec = &its[i]
		}
	}
	return it, nil
}

// text is what show prints of the iteration: the parts o asks for, in
// order, or without any its summary, transcript and checks.
func (it *shownIteration) text(o showOptions) []byte {
	var b bytes.Buffer
	parts := 0
	part := func(title string, text func() string) {
		if parts > 0 {
			b.WriteString("\n")
		}
		parts++
		fmt.Fprintf(&b, "── iteration %d: %s ──\n%s", it.n, title, strings.TrimRight(text(), "\n")+"\n")
	}
	if o.prompt {
		part("prompt", it.prompt)
	}
	if o.raw {
		part("the agent's output", it.rawOutput)
	}
	if o.checks {
		part("checks", func() string { return checksText(it.dir, it.checksRecord()) })
	}
	if o.diff {
		part("diff", it.diff)
	}
	if parts == 0 && it.cand != nil {
		b.WriteString(candidateSummary(it.n, it.rec, it.cand))
		b.WriteString("\n" + transcriptText(it.dir))
		return b.Bytes()
	}
	if parts == 0 {
		b.WriteString(summary(it.n, it.rec, it.running))
		b.WriteString("\n" + transcriptText(it.dir))
		if it.rec != nil {
			b.WriteString("\n" + checksSummary(it.rec))
		}
	}
	return b.Bytes()
}

// prompt is the prompt the agent got.
func (it *shownIteration) prompt() string {
	return readOr(filepath.Join(it.ws, runlog.StateDir, "prompts", "iteration-"+strconv.Itoa(it.n)+".md"), "(the prompt was not found)")
}

// rawOutput is the agent's output stream as it came, then its standard
// error when it wrote any.
func (it *shownIteration) rawOutput() string {
	out := readOr(filepath.Join(it.dir, runlog.AgentStdoutFile), "(the agent printed nothing)")
	if errText := readOr(filepath.Join(it.dir, runlog.AgentStderrFile), ""); strings.TrimSpace(errText) != "" {
		out += "\n── standard error ──\n" + errText
	}
	return out
}

// diff is the iteration's diff as kept, else the diff stat of its record.
func (it *shownIteration) diff() string {
	if d := readOr(filepath.Join(it.dir, runlog.DiffFile), ""); d != "" {
		return d
	}
	if it.cand != nil {
		if it.cand.DiffStat != "" {
			return "(no diff was kept for this candidate; its diff stat:)\n" + it.cand.DiffStat
		}
		return "(no diff was kept for this candidate)"
	}
	if it.rec != nil && it.rec.DiffStat != "" {
		return "(no diff was kept for this iteration; the changes so far:)\n" + it.rec.DiffStat
	}
	return "(no diff was kept for this iteration)"
}

// readOr is the file at path, or or when it cannot be read.
func readOr(path, or string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return or
	}
	return string(data)
}

// transcriptText is the iteration's transcript; for the iteration running
// (whose transcript is written when it ends), one made from its output so
// far.
func transcriptText(dir string) string {
	if t, err := os.ReadFile(filepath.Join(dir, runlog.TranscriptFile)); err == nil {
		return string(t)
	}
	out, err := os.Open(filepath.Join(dir, runlog.AgentStdoutFile))
	if err != nil {
		return "(no transcript was kept for this iteration)\n"
	}
	defer out.Close()
	errOut, _ := runlog.ReadEnd(filepath.Join(dir, runlog.AgentStderrFile), 64<<10)
	return agent.Transcript(out, errOut)
}

func summary(n int, it *runlog.Iteration, running bool) string {
	if it == nil {
		if running {
			return fmt.Sprintf("iteration %d: running\n", n)
		}
		return fmt.Sprintf("iteration %d: not recorded\n", n)
	}
	var b strings.Builder
	passing := 0
	for _, c := range it.CheckResults {
		if c.Passed {
			passing++
		}
	}
	cost := "cost unknown"
	if it.Cost != nil {
		cost = fmt.Sprintf("$%.4f", *it.Cost)
	}
	fmt.Fprintf(&b, "iteration %d: %d/%d checks passing · %.1fs (agent %.1fs, checks %.1fs) · %s · %d steps",
		n, passing, len(it.CheckResults), it.Duration, it.AgentDuration, it.ChecksDuration, cost, it.StepsTaken)
	if it.Tokens != nil {
		fmt.Fprintf(&b, " · %d tokens in (%d cached), %d out", it.Tokens.Input, it.Tokens.CachedInput, it.Tokens.Output)
	}
	b.WriteString("\n")
	switch {
	case it.CompletionSignal != "":
		fmt.Fprintf(&b, "completion: declared (%s)\n", it.CompletionSignal)
	default:
		b.WriteString("completion: not declared\n")
	}
	// Why an iteration whose checks passed, or whose agent declared
	// completion, may still have failed.
	if len(it.ProtectedRestored) > 0 {
		fmt.Fprintf(&b, "protected files changed, restored (the iteration failed): %s\n", strings.Join(it.ProtectedRestored, ", "))
	}
	for _, c := range it.JudgeChanged {
		what := "undone; the iteration failed"
		if c.Kept {
			what = "kept: --judge warn"
		}
		fmt.Fprintf(&b, "judge: %s (%s)\n", c.Text(), what)
	}
	if t := it.TestsRemoved; t != nil && (t.Count > 0 || len(t.Files) > 0) {
		what := "recorded: --tests warn"
		if t.Failed {
			what = "the iteration failed"
		}
		gone := slices.Concat(t.Files, t.Tests, t.NotRun)
		if n := len(t.Tests) + len(t.NotRun); n < t.Count {
			gone = append(gone, fmt.Sprintf("%d more", t.Count-n))
		}
		fmt.Fprintf(&b, "tests removed since the start (%s): %s\n", what, strings.Join(gone, ", "))
	}
	writePlan(&b, it)
	if it.Error != nil {
		fmt.Fprintf(&b, "agent error: %s\n", *it.Error)
	}
	if it.Answer != "" {
		fmt.Fprintf(&b, "answer carried by its prompt: %s\n", it.Answer)
	}
	if it.Question != "" {
		fmt.Fprintf(&b, "question asked: %s\n", it.Question)
	}
	if it.Commit != "" {
		fmt.Fprintf(&b, "commit: %s\n", it.Commit)
	}
	b.WriteString(candidatesText(it.Candidates))
	return b.String()
}

// checksSummary lists the checks with their status, and the changes.
func checksSummary(it *runlog.Iteration) string {
	var b strings.Builder
	b.WriteString("checks:\n")
	if len(it.CheckResults) == 0 {
		b.WriteString("  (none ran)\n")
	}
	for _, c := range it.CheckResults {
		mark, status := "✓", "passed"
		if !c.Passed {
			mark, status = "✗", c.Status()
		}
		fmt.Fprintf(&b, "  %s %s  (%s, %.1fs)\n", mark, c.Name, status, c.Duration)
	}
	if it.DiffStat != "" {
		b.WriteString("changes so far:\n" + it.DiffStat)
		if !strings.HasSuffix(it.DiffStat, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// checksText is every check's whole output as kept, else the record's tail.
// maxChecksLooked bounds the look for check files of an iteration that
// has no record.
const maxChecksLooked = 256

func checksText(dir string, it *runlog.Iteration) string {
	// A check that printed nothing has no file: the record says how many
	// ran; without one (an iteration not recorded yet), the files say how
	// many printed.
	n := 0
	if it != nil {
		n = len(it.CheckResults)
	} else {
		for i := range maxChecksLooked {
			if _, err := os.Stat(filepath.Join(dir, runlog.CheckFile(i))); err == nil {
				n = i + 1
			}
		}
	}
	var b strings.Builder
	for i := range n {
		name, status, out := fmt.Sprintf("check %d", i+1), "", ""
		if it != nil && i < len(it.CheckResults) {
			c := it.CheckResults[i]
			name, status, out = c.Name, "passed", c.Output
			if !c.Passed {
				status = c.Status()
			}
		}
		if data, err := os.ReadFile(filepath.Join(dir, runlog.CheckFile(i))); err == nil {
			out = string(data) // the whole kept output, not the record's tail
		}
		if status != "" {
			fmt.Fprintf(&b, "$ %s   (%s)\n%s\n", name, status, out)
		} else {
			fmt.Fprintf(&b, "$ %s\n%s\n", name, out)
		}
	}
	if b.Len() == 0 {
		return "(no check ran)"
	}
	return b.String()
}

// page shows text through a pager on a terminal: $PAGER, else less (-F:
// none for a screenful, -R: colours, -X: the text stays on the screen);
// elsewhere, or without a pager, it prints it.
func page(e *env, text []byte, noPager bool) error {
	f, ok := e.stdout.(*os.File)
	if noPager || !ok || !term.IsTerminal(int(f.Fd())) {
		_, err := e.stdout.Write(text)
		return err
	}
	pager, set := e.lookup("PAGER")
	if !set {
		pager = "less"
	}
	args := strings.Fields(pager)
	if len(args) == 0 || args[0] == "cat" {
		_, err := e.stdout.Write(text)
		return err
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		_, err := e.stdout.Write(text)
		return err
	}
	if filepath.Base(path) == "less" && len(args) == 1 {
		args = append(args, "-FRX")
	}
	err = proc.Interactive(path, args[1:], bytes.NewReader(text), e.stdout, e.stderr)
	if ee := (*exec.ExitError)(nil); err != nil && !errors.As(err, &ee) { // how a pager ends is the person's business
		return fmt.Errorf("pager %s: %w", pager, err)
	}
	return nil
}

// writePlan writes what the planners (roles:) left on iteration it: that
// they changed files, put back, and their plan with its cost.
func writePlan(b *strings.Builder, it *runlog.Iteration) {
	if it.PlanFilesRestored {
		b.WriteString("plan: the planner changed files; they were put back\n")
	}
	if it.Plan != "" {
		cost := ""
		if it.PlanCost != nil {
			cost = fmt.Sprintf(" ($%.4f)", *it.PlanCost)
		}
		fmt.Fprintf(b, "plan%s:\n%s\n", cost, indent(it.Plan))
	}
}

// indent puts two spaces before each line of s.
func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
