package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// The round these tests play: three candidates; candidate 1 fails its
// checks, candidate 2 succeeds and is kept, candidate 3 is stopped.
var (
	cand1 = runlog.Candidate{N: 1, Agent: "claude", Model: "sonnet", ChecksPassed: 1, ChecksTotal: 3, FailingLines: 40, DiffLines: 12,
		Cost: ptr(0.02), Duration: 31, Failing: []string{"go test ./...", "go vet ./..."}, Why: "fewer checks passing than #2 (1 of 3 against 3)",
		Transcript: "transcripts/iteration-2/candidate-1"}
	cand2 = runlog.Candidate{N: 2, Agent: "codex", Kept: true, Success: true, CompletionSignal: "tag", ChecksPassed: 3, ChecksTotal: 3,
		Cost: ptr(0.05), Duration: 40, Transcript: "transcripts/iteration-2/candidate-2"}
	cand3 = runlog.Candidate{N: 3, Agent: "claude", Model: "sonnet", Stopped: true, Cost: ptr(0.01), Duration: 40,
		Why: "stopped: #2 succeeded first", Transcript: "transcripts/iteration-2/candidate-3"}
)

func started(c runlog.Candidate) *runlog.Candidate {
	return &runlog.Candidate{N: c.N, Agent: c.Agent, Model: c.Model}
}

// playRound plays iteration 2 as a round of the three candidates, up to
// the point named: "running" (all started, #1 checking), "one" (#1
// finished), "end" (the round recorded).
func playRound(f *fake, upTo string) {
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 2, MaxIterations: 25, Agent: "claude", Model: "sonnet"})
	for _, c := range []runlog.Candidate{cand1, cand2, cand3} {
		f.ev(runlog.Event{Type: runlog.EventCandidateStarted, Iteration: 2, Candidate: started(c)})
	}
	f.now = f.now.Add(30 * time.Second)
	f.ev(runlog.Event{Type: runlog.EventAgentFinished, Iteration: 2, Cost: ptr(0.02), Candidate: started(cand1)})
	f.ev(runlog.Event{Type: runlog.EventCheckStarted, Iteration: 2, Check: "go test ./...", Index: ptr(0), Candidate: started(cand1)})
	if upTo == "running" {
		return
	}
	f.now = f.now.Add(time.Second)
	f.ev(runlog.Event{Type: runlog.EventCheckFinished, Iteration: 2, Check: "go test ./...", Index: ptr(0), Passed: ptr(false), Candidate: started(cand1)})
	c1 := cand1
	c1.Why = "" // known once the round ends
	f.ev(runlog.Event{Type: runlog.EventCandidateFinished, Iteration: 2, Candidate: &c1})
	if upTo == "one" {
		return
	}
	f.now = f.now.Add(9 * time.Second)
	c2, c3 := cand2, cand3
	c2.Kept, c3.Why = false, ""
	f.ev(runlog.Event{Type: runlog.EventCandidateFinished, Iteration: 2, Candidate: &c2})
	f.ev(runlog.Event{Type: runlog.EventCandidateFinished, Iteration: 2, Candidate: &c3})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, AllChecksPassed: ptr(true), CompletionSignal: "tag", Cost: ptr(0.08),
		Duration: ptr(40.0), AgentDuration: ptr(35.0), ChecksDuration: ptr(5.0), Candidates: []runlog.Candidate{cand1, cand2, cand3}})
}

func newRoundFake(w, h int) *fake {
	f := newFake(Info{Task: "fix the parser", Agent: "claude", Model: "sonnet"}, Controls{}, nil)
	f.size(w, h)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: checks3})
	f.iteration(1, checks3, []bool{false, true, false}, 0.41)
	return f
}

// While a round runs, the view shows its candidates side by side: number,
// agent, state, checks passing and cost; the phase line counts them; the
// checks pane is not disturbed by a candidate's checks.
func TestRoundSideBySide(t *testing.T) {
	is := is.New(t)
	f := newRoundFake(120, 34)
	playRound(f, "running")
	s := f.screen()
	is.True(strings.Contains(s, "── Candidates, iteration 2 (3 at once) ──"))
	is.True(strings.Contains(s, "3 candidates: 2 running, 1 checking · 30s"))
	line := lineWith(s, "#1 claude (sonnet)")
	is.True(strings.Contains(line, "#2 codex") && strings.Contains(line, "#3 claude (sonnet)")) // side by side
	is.True(strings.Contains(lineWith(s, "⠋ checks"), "⠋ running"))                             // #1 checks, the others run
	is.True(strings.Contains(s, "  · go test ./..."))                                           // the run's checks pane stays pending
	playRound(f, "one")
	s = f.screen()
	line = lineWith(s, "✗ failed")
	is.True(strings.Contains(line, "running"))                                 // #1 failed beside the others running
	is.True(strings.Contains(lineWith(s, "checks 1/3 · $0.0200"), "checks -")) // its checks and cost
	is.True(strings.Contains(s, "3 candidates: 2 running, 1 done · 31s · $0.0200 so far"))
	is.True(strings.Contains(s, "iteration 2/25 · $0.4300")) // the header counts what the round spent
	is.True(strings.Contains(s, "  · go test ./..."))        // a candidate's check is not the run's
	assertFits(t, f, 120, 34)
}

// When the round ends, the pane says which candidate was kept and why
// each other lost, and the history row names the kept one.
func TestRoundEndKeptAndWhy(t *testing.T) {
	is := is.New(t)
	f := newRoundFake(120, 34)
	playRound(f, "end")
	s := f.screen()
	is.True(strings.Contains(s, "── Candidates, iteration 2: #2 kept ──"))
	is.True(strings.Contains(lineWith(s, "★ kept"), "not kept:"))
	why := lineWith(s, "fewer checks passing")
	is.True(strings.Contains(why, "stopped: #2 succeeded first")) // each loser's reason, in its column
	is.True(strings.Contains(lineWith(s, "■ stopped"), "✓ passed"))
	row := lineWith(s, "  #2 ")
	is.True(strings.Contains(row, "✓ 3/3"))        // the kept candidate's checks
	is.True(strings.Contains(row, "$0.0800"))      // the round's cost
	is.True(strings.Contains(row, "kept #2 of 3")) // and the candidate kept
	is.True(strings.Contains(row, "on codex"))     // which ran on another agent than the run's
	is.True(strings.Contains(s, "iteration 2/25 · $0.4900"))
	assertFits(t, f, 120, 34)

	// The next iteration starts: the pane goes, the row stays.
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 3, MaxIterations: 25})
	s = f.screen()
	is.True(!strings.Contains(s, "Candidates"))
	is.True(strings.Contains(s, "kept #2 of 3"))
}

// On a narrow terminal each candidate takes a line of its own.
func TestRoundNarrowOneLineEach(t *testing.T) {
	is := is.New(t)
	f := newRoundFake(60, 24)
	playRound(f, "end")
	s := f.screen()
	is.True(strings.Contains(s, "── Candidates, iteration 2: #2 kept"))
	is.True(strings.HasPrefix(lineWith(s, "#1 ✗"), "  #1 ✗ failed     checks 1/3 · $0.0200 · claude (sonnet) · …"))
	is.Equal(lineWith(s, "#2 ✓"), "  #2 ✓ passed     checks 3/3 · $0.0500 · codex ★ kept")
	is.True(strings.HasPrefix(lineWith(s, "#3 ■"), "  #3 ■ stopped    checks - · $0.0100 · claude (sonnet) · st…"))
	assertFits(t, f, 60, 24)
	f.size(86, 24) // too narrow for three columns: a line each, the reasons in full where they fit
	s = f.screen()
	is.Equal(lineWith(s, "#3 ■"), "  #3 ■ stopped    checks - · $0.0100 · claude (sonnet) · stopped: #2 succeeded first")
	assertFits(t, f, 86, 24)
	// A terminal too small for the pane keeps the other panes.
	f.size(60, 12)
	is.True(!strings.Contains(f.screen(), "Candidates"))
	assertFits(t, f, 60, 12)
}

// A resumed run's history names the kept candidate from the records.
func TestRowsFromRecordsNameTheKept(t *testing.T) {
	is := is.New(t)
	rows := Rows([]runlog.Iteration{{Iteration: 1}, {Iteration: 2, Candidates: []runlog.Candidate{cand1, cand2, cand3}}})
	is.Equal(rows[0].roundWord(), "")
	is.Equal(rows[1].roundWord(), "kept #2 of 3")
	rows = Rows([]runlog.Iteration{{Iteration: 1, Candidates: []runlog.Candidate{{N: 1}, {N: 2}}}})
	is.Equal(rows[0].roundWord(), "none kept of 2")
}

// Where no screen is drawn, each candidate gets a line as it finishes and
// the round a line for the kept one, then one per loser with its reason;
// every line stamped as the loop's are.
func TestPlainRoundLines(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	w := Plain(&out, func() time.Time { return t0 })
	observe := PlainEvents(w)
	record := observe
	record(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25})
	record(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 2, MaxIterations: 25})
	for _, c := range []runlog.Candidate{cand1, cand2, cand3} {
		record(runlog.Event{Type: runlog.EventCandidateStarted, Iteration: 2, Candidate: started(c)})
	}
	c1, c2, c3 := cand1, cand2, cand3
	c1.Why, c2.Kept, c3.Why = "", false, ""
	c4 := runlog.Candidate{N: 4, Agent: "gemini", TimedOut: true, ChecksTotal: 3, Duration: 600}
	c5 := runlog.Candidate{N: 5, Agent: "amp", Error: ptr("usage limit\nreached"), Duration: 2}
	for _, c := range []runlog.Candidate{c1, c2, c3, c4, c5} {
		record(runlog.Event{Type: runlog.EventCandidateFinished, Iteration: 2, Candidate: &c})
	}
	record(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, Candidates: []runlog.Candidate{cand1, cand2, cand3}})
	want := []string{
		"architect: iteration 2/25: candidate 1 (claude, sonnet) failed: go test ./..., go vet ./... · checks 1/3 · $0.0200 · 31.0s",
		"architect: iteration 2/25: candidate 2 (codex) passed: its checks pass and it declared completion · checks 3/3 · $0.0500 · 40.0s",
		"architect: iteration 2/25: candidate 3 (claude, sonnet) stopped: another candidate succeeded first · $0.0100 · 40.0s",
		"architect: iteration 2/25: candidate 4 (gemini) timed out · checks 0/3 · cost unknown · 10m00s",
		"architect: iteration 2/25: candidate 5 (amp) agent error: usage limit · cost unknown · 2.0s",
		"architect: iteration 2/25: kept candidate 2 (codex) of 3",
		"architect: iteration 2/25: candidate 1 not kept: fewer checks passing than #2 (1 of 3 against 3)",
		"architect: iteration 2/25: candidate 3 not kept: stopped: #2 succeeded first",
	}
	is.Equal(out.String(), "2026-11-22T08:00:00Z "+strings.Join(want, "\n2026-11-22T08:00:00Z ")+"\n")

	// A run without candidates gets no line from its events.
	out.Reset()
	quiet := PlainEvents(w)
	for _, e := range ordinaryEvents() {
		quiet(e)
	}
	is.Equal(out.String(), "")
}

// ordinaryEvents is the event stream of an iteration without candidates.
func ordinaryEvents() []runlog.Event {
	return []runlog.Event{
		{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: checks3},
		{Type: runlog.EventIterationStarted, Iteration: 1, MaxIterations: 25},
		{Type: runlog.EventAgentActivity, Iteration: 1, Text: "Read a.go"},
		{Type: runlog.EventAgentFinished, Iteration: 1, Cost: ptr(0.1)},
		{Type: runlog.EventCheckStarted, Iteration: 1, Check: "go test ./...", Index: ptr(0)},
		{Type: runlog.EventCheckFinished, Iteration: 1, Check: "go test ./...", Index: ptr(0), Passed: ptr(true)},
		{Type: runlog.EventIterationFinished, Iteration: 1, AllChecksPassed: ptr(true), Cost: ptr(0.1)},
		{Type: runlog.EventLoopFinished, Iteration: 1, Success: ptr(true), StopReason: runlog.StopSuccess},
	}
}

// lineWith is the first line of s containing sub ("" when none).
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// assertFits checks that the screen is h lines of at most w cells.
func assertFits(t *testing.T, f *fake, w, h int) {
	t.Helper()
	lines := strings.Split(f.m.render(), "\n")
	if len(lines) != h {
		t.Fatalf("%d lines on a screen of %d", len(lines), h)
	}
	for i, l := range lines {
		if n := width(l); n != w {
			t.Fatalf("line %d is %d cells wide on a screen of %d: %q", i, n, w, l)
		}
	}
}

// A batch task's board row counts its round's candidates and what the
// finished ones cost.
func TestBoardCountsCandidates(t *testing.T) {
	is := is.New(t)
	b := NewBoardModel([]string{"task-1"}, func() {}, func() time.Time { return t0 })
	b.Update(tea.WindowSizeMsg{Width: 100, Height: 10})
	ev := func(e runlog.Event) {
		e.Time = t0.Format(time.RFC3339Nano)
		b.Update(boardEvent{id: "task-1", eventMsg: eventMsg{e}})
	}
	ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 5})
	ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1, MaxIterations: 5})
	for _, c := range []runlog.Candidate{cand1, cand2, cand3} {
		ev(runlog.Event{Type: runlog.EventCandidateStarted, Iteration: 1, Candidate: started(c)})
	}
	ev(runlog.Event{Type: runlog.EventAgentFinished, Iteration: 1, Cost: ptr(0.02), Candidate: started(cand1)})
	c1 := cand1
	ev(runlog.Event{Type: runlog.EventCandidateFinished, Iteration: 1, Candidate: &c1})
	row := lineWith(boardScreen(b), "task-1")
	is.True(strings.Contains(row, "3 candidates: 1 done"))
	is.True(strings.Contains(row, "$0.0200"))
}

// Every line of a screen with a round fits the terminal, at any size,
// with wide characters in an agent's name and a reason.
func TestRoundFitsEveryWidth(t *testing.T) {
	for w := 20; w <= 200; w += 9 {
		for _, h := range []int{8, 16, 24, 40} {
			f := newRoundFake(w, h)
			playRound(f, "one")
			assertFits(t, f, w, h)
			f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, Candidates: []runlog.Candidate{
				{N: 1, Agent: "エージェント", Why: "差分が大きい \x1b[31mred\x1b[0m"}, {N: 2, Kept: true}, {N: 3, Why: "stopped"}}})
			assertFits(t, f, w, h)
		}
	}
}

// A wait for a usage limit during a round is what the phase line says,
// not the round's count.
func TestRoundWaitShowsTheWait(t *testing.T) {
	is := is.New(t)
	f := newRoundFake(120, 34)
	playRound(f, "running")
	f.ev(runlog.Event{Type: runlog.EventUsageLimitWait, Iteration: 2, Seconds: ptr(600.0), Agent: "codex"})
	s := f.screen()
	is.True(strings.Contains(lineWith(s, "usage limit"), "usage limit of codex: waiting 10m00s"))
	is.True(!strings.Contains(s, "3 candidates: "))
	is.True(strings.Contains(s, "── Candidates, iteration 2 (3 at once) ──")) // the pane stays
}

// A batch's plain lines of a round name their task, as its other lines do.
func TestPlainTaskLinesNameTheTask(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	observe := PlainTaskEvents(&out)
	observe("fix-auth", runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1, MaxIterations: 5})
	observe("docs", runlog.Event{Type: runlog.EventIterationStarted, Iteration: 3, MaxIterations: 9})
	observe("fix-auth", runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1, Candidates: []runlog.Candidate{cand2}})
	observe("docs", runlog.Event{Type: runlog.EventIterationFinished, Iteration: 3, Candidates: []runlog.Candidate{cand1, cand2}})
	is.Equal(out.String(), "architect: [fix-auth] iteration 1/5: kept candidate 2 (codex) of 1\n"+
		"architect: [docs] iteration 3/9: kept candidate 2 (codex) of 2\n"+
		"architect: [docs] iteration 3/9: candidate 1 not kept: fewer checks passing than #2 (1 of 3 against 3)\n")
}

// The pane takes no row it does not fill: three under the title while
// the round runs, more once it ends.
func TestRoundPaneHasNoEmptyRow(t *testing.T) {
	is := is.New(t)
	f := newRoundFake(120, 34)
	playRound(f, "one")
	s := f.screen()
	i := strings.Index(s, "── Candidates")
	is.True(i >= 0)
	rows := strings.Split(s[i:], "\n")
	is.True(strings.HasPrefix(rows[4], "── Agent activity")) // title, three rows, then the next pane
	playRound(f, "end")
	s = f.screen()
	rows = strings.Split(s[strings.Index(s, "── Candidates"):], "\n")
	is.True(strings.Contains(rows[5], "fewer checks passing"))
	is.True(strings.HasPrefix(rows[6], "── Agent activity"))
}
