package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/tui"
	"github.com/matryer/is"
)

// roundIteration is ordinaryIteration as a round of three candidates: #1
// failed its checks, #2 succeeded and was kept, #3 was stopped.
func roundIteration() *runlog.Iteration {
	it := ordinaryIteration()
	it.Agent, it.Model, it.Cost = "codex", "", ptrTo(0.07)
	it.Candidates = []runlog.Candidate{
		{N: 1, Agent: "claude", Model: "sonnet", ChecksPassed: 1, ChecksTotal: 3, FailingLines: 40, DiffLines: 12, Cost: ptrTo(0.02), Duration: 31,
			Failing: []string{"go test ./...", "go vet ./..."}, Why: "fewer checks passing than #2 (1 of 3 against 3)", Transcript: "transcripts/iteration-2/candidate-1"},
		{N: 2, Agent: "codex", Kept: true, Success: true, CompletionSignal: "tag", ChecksPassed: 3, ChecksTotal: 3, DiffLines: 20, Cost: ptrTo(0.05), Duration: 40,
			Tokens: &runlog.Tokens{Input: 900, CachedInput: 100, Output: 200}, Transcript: "transcripts/iteration-2/candidate-2"},
		{N: 3, Agent: "claude", Model: "sonnet", Stopped: true, Duration: 40, Error: ptrTo("stopped\nby architect"),
			Why: "stopped: #2 succeeded first", Transcript: "transcripts/iteration-2/candidate-3"},
	}
	return it
}

// show of a round's iteration lists every candidate: the kept one marked,
// why each other lost, its checks, cost, time and transcript folder.
func TestShowListsCandidates(t *testing.T) {
	is := is.New(t)
	out := summary(2, roundIteration(), false)
	is.True(strings.Contains(out, "candidates: 3 at once, #2 kept (the cost above is their sum)\n"))
	is.True(strings.Contains(out, "  ✗ #1 claude (sonnet): failed · 1/3 checks passing · $0.0200 · 31.0s · 12 lines changed\n"+
		"      not kept: fewer checks passing than #2 (1 of 3 against 3)\n"+
		"      failing: go test ./..., go vet ./...\n"+
		"      transcript: .architect/transcripts/iteration-2/candidate-1\n"))
	is.True(strings.Contains(out, "  ★ #2 codex: kept, passed · 3/3 checks passing · $0.0500 · 40.0s · 20 lines changed · 900 tokens in (100 cached), 200 out\n"+
		"      completion: declared (tag)\n"+
		"      transcript: .architect/transcripts/iteration-2/candidate-2\n"))
	is.True(strings.Contains(out, "  ■ #3 claude (sonnet): stopped · no checks ran · cost unknown · 40.0s\n"+
		"      not kept: stopped: #2 succeeded first\n"+
		"      agent error: stopped\n"+
		"      transcript: .architect/transcripts/iteration-2/candidate-3\n"))
	golden(t, "show_candidates.txt", out)
}

// Through the records on disk: `architect show 2` of a run whose second
// iteration was a round prints its candidates; the first, an ordinary
// iteration, prints none. The terminal view's detail is the same text.
func TestShowReadsCandidatesFromTheRecords(t *testing.T) {
	is := is.New(t)
	ws := roundWorkspace(t)
	it, err := findIteration(ws, "", 2)
	is.NoErr(err)
	out := string(it.text(showOptions{}))
	is.True(strings.Contains(out, "candidates: 3 at once, #2 kept"))
	is.True(strings.Contains(out, "      not kept: stopped: #2 succeeded first\n"))
	it, err = findIteration(ws, "", 1)
	is.NoErr(err)
	is.True(!strings.Contains(string(it.text(showOptions{})), "candidates"))

	d, err := loader{&runFiles{ws: ws}}.Detail(2)
	is.NoErr(err)
	is.True(strings.Contains(d.Sections[0].Text, "★ #2 codex: kept, passed"))
	is.Equal(len(d.Sections), 4+3) // transcript, diff, checks, prompt, then a section per candidate
	is.Equal(d.Sections[4].Title, "Candidate 1")
	is.True(strings.HasPrefix(d.Sections[4].Text, "iteration 2, candidate 1 of 3\n"))
	is.True(strings.Contains(d.Sections[4].Text, "I edited parse.go")) // its own transcript
	is.Equal(d.Sections[6].Title, "Candidate 3")
	d, err = loader{&runFiles{ws: ws}}.Detail(1)
	is.NoErr(err)
	is.Equal(len(d.Sections), 4) // an ordinary iteration's detail is as it was
}

// A run printed as plain lines (a pipe, a CI log) says each candidate as
// it finishes and the kept one; --quiet says nothing of them.
func TestPlainViewSaysCandidates(t *testing.T) {
	is := is.New(t)
	var stderr strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, lookup: noEnv}
	round := roundIteration()
	evs := []runlog.Event{
		{Type: runlog.EventIterationStarted, Iteration: 2, MaxIterations: 5},
		{Type: runlog.EventCandidateFinished, Iteration: 2, Candidate: &round.Candidates[0]},
		{Type: runlog.EventIterationFinished, Iteration: 2, Candidates: round.Candidates},
	}
	v := newView(e, config.Config{}, tui.Info{}, &runFiles{})
	is.True(v.observe != nil)
	for _, ev := range evs {
		v.observe(ev)
	}
	v.stop()
	out := stderr.String()
	is.True(strings.Contains(out, " architect: iteration 2/5: candidate 1 (claude, sonnet) failed: go test ./..., go vet ./... · checks 1/3 · $0.0200 · 31.0s\n"))
	is.True(strings.Contains(out, " architect: iteration 2/5: kept candidate 2 (codex) of 3\n"))
	is.True(strings.Contains(out, " architect: iteration 2/5: candidate 3 not kept: stopped: #2 succeeded first\n"))

	stderr.Reset()
	v = newView(e, config.Config{Quiet: true}, tui.Info{}, &runFiles{})
	is.True(v.observe == nil)
	v.stop()
	is.Equal(stderr.String(), "")
}

// roundWorkspace is a workspace whose run recorded an ordinary iteration
// 1 and a round as iteration 2, candidate 1's folder holding its
// transcript, its checks' output and its diff.
func roundWorkspace(t *testing.T) string {
	t.Helper()
	is := is.New(t)
	ws := t.TempDir()
	is.NoErr(os.MkdirAll(runlog.Path(ws, ""), 0o700))
	is.NoErr(runlog.WriteJSON(runlog.Path(ws, runlog.StateFile), runlog.State{Workspace: ws, Iteration: 2, MaxIterations: 5}))
	first := ordinaryIteration()
	first.Iteration = 1
	is.NoErr(runlog.AppendRecord(runlog.Path(ws, runlog.RecordsFile), runlog.Record{Iteration: *first}))
	is.NoErr(runlog.AppendRecord(runlog.Path(ws, runlog.RecordsFile), runlog.Record{Iteration: *roundIteration()}))
	dir := runlog.Path(ws, "transcripts/iteration-2/candidate-1")
	is.NoErr(os.MkdirAll(dir, 0o700))
	is.NoErr(os.WriteFile(filepath.Join(dir, runlog.TranscriptFile), []byte("## candidate one said\nI edited parse.go\n"), 0o600))
	is.NoErr(os.WriteFile(filepath.Join(dir, runlog.CheckFile(0)), []byte("--- FAIL: TestParse\n"), 0o600))
	is.NoErr(os.WriteFile(filepath.Join(dir, runlog.DiffFile), []byte("diff --git a/parse.go b/parse.go\n+one\n"), 0o600))
	return ws
}

// `architect show 2 --candidate 1` prints that candidate, kept or not:
// its line, its own transcript, and with --checks and --diff its own
// checks' output and diff, not the kept one's.
func TestShowOneCandidate(t *testing.T) {
	is := is.New(t)
	ws := roundWorkspace(t)
	show := func(args ...string) (string, string, int) {
		var out, errOut strings.Builder
		code := Main(append([]string{"show", "-C", ws, "--no-pager"}, args...), strings.NewReader(""), &out, &errOut)
		return out.String(), errOut.String(), code
	}
	out, _, code := show("2", "--candidate", "1")
	is.Equal(code, 0)
	is.True(strings.HasPrefix(out, "iteration 2, candidate 1 of 3\n  ✗ #1 claude (sonnet): failed · 1/3 checks passing"))
	is.True(strings.Contains(out, "      not kept: fewer checks passing than #2 (1 of 3 against 3)\n"))
	is.True(strings.Contains(out, "I edited parse.go"))
	is.True(!strings.Contains(out, "#2 codex")) // only the candidate asked for
	out, _, code = show("2", "--candidate", "1", "--checks", "--diff")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "--- FAIL: TestParse"))
	is.True(strings.Contains(out, "+one"))
	is.True(!strings.Contains(out, "go vet ./...   (")) // the kept one's check records are not its
	out, _, code = show("2", "--candidate", "2")
	is.Equal(code, 0)
	is.True(strings.HasPrefix(out, "iteration 2, candidate 2 of 3: kept, its change is the iteration's\n"))
	is.True(strings.Contains(out, "(no transcript was kept for this iteration)")) // its folder was not written here

	for _, tc := range []struct {
		args      []string
		msg, hint string
	}{
		{[]string{"2", "--candidate", "4"}, "--candidate 4: iteration 2 ran 3 candidates", "architect show 2 --candidate 1"},
		{[]string{"1", "--candidate", "1"}, "--candidate 1: iteration 1 ran no candidates", "architect show 1"},
		{[]string{"2", "--candidate", "-1"}, "--candidate -1: candidates are numbered from 1", "architect show 2 --candidate 1"},
	} {
		out, errOut, code := show(tc.args...)
		is.Equal(code, 2) // a usage error
		is.Equal(out, "")
		is.True(strings.Contains(errOut, "architect: error: "+tc.msg))
		is.True(strings.Contains(errOut, "architect: hint: "+tc.hint))
	}
}

// `architect status` says the last round: which candidate was kept and
// why the others lost; a run without candidates says nothing of rounds.
func TestStatusSaysTheLastRound(t *testing.T) {
	is := is.New(t)
	ws := roundWorkspace(t)
	var out strings.Builder
	is.Equal(Main([]string{"status", "-C", ws}, strings.NewReader(""), &out, io.Discard), 0)
	is.True(strings.Contains(out.String(), "\nLast round: iteration 2, candidate 2 (codex) kept of 3; #1: fewer checks passing than #2 (1 of 3 against 3); #3: stopped: #2 succeeded first\n"))
	out.Reset()
	is.Equal(Main([]string{"status", "-C", ws, "--json"}, strings.NewReader(""), &out, io.Discard), 0)
	is.True(!strings.Contains(out.String(), "round")) // the JSON's schema is as it was

	plain := t.TempDir()
	is.NoErr(os.MkdirAll(runlog.Path(plain, ""), 0o700))
	is.NoErr(runlog.WriteJSON(runlog.Path(plain, runlog.StateFile), runlog.State{Workspace: plain, Iteration: 1, MaxIterations: 5}))
	first := ordinaryIteration()
	first.Iteration = 1
	is.NoErr(runlog.AppendRecord(runlog.Path(plain, runlog.RecordsFile), runlog.Record{Iteration: *first}))
	out.Reset()
	is.Equal(Main([]string{"status", "-C", plain}, strings.NewReader(""), &out, io.Discard), 0)
	is.True(strings.Contains(out.String(), "Checks: 1/2 passing in iteration 1"))
	is.True(!strings.Contains(out.String(), "round"))
}

// A batch printed as plain lines says its tasks' rounds, each line naming
// its task; --quiet says nothing.
func TestPlainBatchSaysCandidates(t *testing.T) {
	is := is.New(t)
	var stderr strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, lookup: noEnv, interrupt: &interrupter{}}
	var opts batch.Options
	stop, restore := showBatch(e, []batch.Task{{ID: "fix-auth"}}, batchOptions{}, &opts)
	is.True(opts.Events != nil)
	opts.Events("fix-auth", runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, Candidates: roundIteration().Candidates})
	stop()
	restore()
	is.True(strings.HasPrefix(stderr.String(), "architect: [fix-auth] iteration 2: kept candidate 2 (codex) of 3\n"))

	opts = batch.Options{}
	showBatch(e, nil, batchOptions{quiet: true}, &opts)
	is.True(opts.Events == nil)
}
