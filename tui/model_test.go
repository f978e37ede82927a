package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/architect-dev/architect/runlog"
	"github.com/charmbracelet/x/ansi"
	"github.com/matryer/is"
)

var t0 = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// fake is a run played into a model with a clock the test moves.
type fake struct {
	m   *Model
	now time.Time
}

func newFake(info Info, c Controls, l Loader) *fake {
	f := &fake{now: t0}
	f.m = NewModel(info, c, l, func() time.Time { return f.now })
	f.size(100, 30)
	return f
}

func (f *fake) size(w, h int) { f.m.Update(tea.WindowSizeMsg{Width: w, Height: h}) }

// ev applies e at the fake time, running the command it returns (a load).
func (f *fake) ev(e runlog.Event) {
	e.Time = f.now.Format(time.RFC3339Nano)
	_, cmd := f.m.Update(eventMsg{e})
	f.run(cmd)
}

func (f *fake) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if msg := cmd(); msg != nil {
		if _, ok := msg.(tickMsg); ok {
			return
		}
		_, next := f.m.Update(msg)
		f.run(next)
	}
}

func (f *fake) key(k tea.KeyPressMsg) {
	_, cmd := f.m.Update(k)
	f.run(cmd)
}

func keyText(s string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: []rune(s)[0], Text: s} }

// iteration plays a whole iteration: activity, agent, checks (passing[i]
// for check i), record.
func (f *fake) iteration(n int, checks []string, passing []bool, cost float64, activity ...string) {
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: n, MaxIterations: 25})
	for _, a := range activity {
		f.ev(runlog.Event{Type: runlog.EventAgentActivity, Iteration: n, Text: a})
	}
	f.now = f.now.Add(90 * time.Second)
	f.ev(runlog.Event{Type: runlog.EventAgentFinished, Iteration: n, Cost: ptr(cost)})
	all := true
	for i, c := range checks {
		f.ev(runlog.Event{Type: runlog.EventCheckStarted, Iteration: n, Check: c, Index: ptr(i)})
		f.now = f.now.Add(time.Duration(i+1) * time.Second)
		f.ev(runlog.Event{Type: runlog.EventCheckFinished, Iteration: n, Check: c, Index: ptr(i), Passed: ptr(passing[i]), Duration: ptr(float64(i + 1)), ExitCode: ptr(map[bool]int{true: 0, false: 1}[passing[i]])})
		all = all && passing[i]
	}
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: n, AllChecksPassed: ptr(all), Cost: ptr(cost), Duration: ptr(96.0), AgentDuration: ptr(90.0), ChecksDuration: ptr(6.0)})
}

// screen is the rendered screen without escape sequences, and without the
// spaces that pad each line to the terminal's width.
func (f *fake) screen() string {
	lines := strings.Split(ansi.Strip(f.m.render()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

var checks3 = []string{"go test ./...", "golangci-lint run", "go vet ./..."}

func TestHeaderHistoryChecksAndActivity(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{Task: "make the auth tests pass\nand more", Agent: "claude", Model: "sonnet", Budget: 5, MaxTime: 2 * time.Hour}, Controls{}, nil)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: checks3, Branch: "architect/ralph-loop"})
	f.iteration(1, checks3, []bool{false, true, false}, 0.41, "Read auth.go", "Edit auth.go")
	f.iteration(2, checks3, []bool{true, true, true}, 0.52, "Bash go test ./...")
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 3, MaxIterations: 25})
	f.ev(runlog.Event{Type: runlog.EventAgentActivity, Iteration: 3, Text: "Grep TODO"})
	f.now = f.now.Add(65 * time.Second)
	s := f.screen()
	lines := strings.Split(s, "\n")
	is.Equal(len(lines), 30)
	is.True(strings.HasPrefix(lines[0], "architect · ● running · iteration 3/25 · $0.9300 of $5.00 · 4m17s · 1h55m left"))
	is.Equal(strings.TrimSpace(lines[1]), "task: make the auth tests pass")
	is.True(strings.Contains(lines[2], "agent claude (sonnet) 1m05s · on architect/ralph-loop"))
	is.True(strings.Contains(s, "── History (2) ──"))
	is.True(strings.Contains(s, "  #1  ✗ 1/3      1m36s    1m30s    $0.4100"))
	is.True(strings.Contains(s, "  #2  ✓ 3/3      1m36s    1m30s    $0.5200"))
	is.True(strings.Contains(s, "── iteration 3 ──\n  Grep TODO"))
	is.True(strings.Contains(s, "  · go test ./..."))                                       // pending again in iteration 3
	is.True(strings.HasPrefix(lines[29], "p pause · s stop after this iteration · q stop")) // the keys stay at the bottom
}

func TestChecksStatusDurationAndSlowest(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{}, Controls{}, nil)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 3, Checks: checks3})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1})
	f.ev(runlog.Event{Type: runlog.EventAgentFinished, Iteration: 1})
	for i := range checks3 {
		f.ev(runlog.Event{Type: runlog.EventCheckStarted, Iteration: 1, Index: ptr(i), Check: checks3[i]})
	}
	f.now = f.now.Add(2 * time.Second)
	is.True(!strings.Contains(f.screen(), "slowest")) // none has finished: none is marked
	f.ev(runlog.Event{Type: runlog.EventCheckFinished, Iteration: 1, Index: ptr(2), Check: checks3[2], Passed: ptr(true), Duration: ptr(0.4)})
	f.ev(runlog.Event{Type: runlog.EventCheckFinished, Iteration: 1, Index: ptr(0), Check: checks3[0], Passed: ptr(false), Duration: ptr(12.5), TimedOut: true})
	f.now = f.now.Add(3 * time.Second)
	s := f.screen()
	is.True(strings.Contains(s, "⏱ go test ./...  12.5s timed out slowest"))
	is.True(strings.Contains(s, "golangci-lint run  5s\n")) // still running: its time so far
	is.True(strings.Contains(s, "✓ go vet ./...  0.4s\n"))
	is.True(strings.Contains(s, "checks 2/3 done"))
}

// Every line of every screen is exactly the terminal's width, on any
// size, with wide characters, emoji and escape sequences in what the
// agent and the checks print (by both ways of measuring width).
func TestEveryLineFitsTheTerminal(t *testing.T) {
	is := is.New(t)
	info := Info{Task: "認証テストを直す 🚀 make the auth tests pass with a very long task description that goes on", Agent: "claude", Budget: 5}
	f := newFake(info, Controls{}, fakeLoader{})
	wide := []string{"go test ./... # テスト 🧪", "lint\tx", "\x1b[31mred\x1b[0m check"}
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 300, Checks: wide})
	acts := []string{"日本語のメッセージ 🚀 with emoji 👍🏽 and ❤️ and 👨‍👩‍👧", "\x1b[2J\x1b[Hcleared?\x1b]0;title\x07 \x1b[1;32mgreen\x1b[0m", "tab\there\r\nnext line", strings.Repeat("x", 500)}
	for n := 1; n <= 40; n++ {
		f.iteration(n, wide, []bool{n%2 == 0, false, true}, 0.01, acts...)
	}
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 41})
	f.ev(runlog.Event{Type: runlog.EventAgentActivity, Iteration: 41, Text: acts[0]})
	f.m.logged("architect: warning: ワーニング 🚨 " + strings.Repeat("w", 300))
	for _, w := range []int{1, 10, 20, 39, 40, 59, 60, 61, 80, 109, 110, 111, 200} {
		for _, h := range []int{1, 3, 5, 8, 12, 24, 50} {
			f.size(w, h)
			for _, mode := range []string{"main", "help", "detail"} {
				f.m.help = mode == "help"
				f.m.detail = nil
				if mode == "detail" {
					f.key(tea.KeyPressMsg{Code: tea.KeyEnter})
				}
				out := f.m.render()
				lines := strings.Split(out, "\n")
				is.Equal(len(lines), h) // one line per row
				for _, l := range lines {
					if ansi.StringWidthWc(l) != w || ansi.StringWidth(l) != w {
						t.Fatalf("%dx%d %s: line %q is %d (wc) / %d cells wide", w, h, mode, ansi.Strip(l), ansi.StringWidthWc(l), ansi.StringWidth(l))
					}
				}
				for _, bad := range []string{"\x1b[2J", "\x1b[H", "\x1b]0;", "\x07", "\t", "\r", "\x1b[1;32m"} {
					is.True(!strings.Contains(out, bad)) // nothing of the agent's escapes reaches the screen
				}
			}
		}
	}
}

// At 60 columns the first line still shows the state, the iteration and
// the cost; narrower, the cost goes last.
func TestNarrowTerminalKeepsCost(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{Task: "t", Budget: 25, MaxTime: time.Hour}, Controls{}, nil)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25})
	f.iteration(1, nil, nil, 1.5)
	f.size(60, 20)
	first := strings.Split(f.screen(), "\n")[0]
	is.True(strings.Contains(first, "$1.50 of $25.00"))
	is.True(strings.Contains(first, "iteration 1/25"))
	f.size(40, 20)
	first = strings.Split(f.screen(), "\n")[0]
	is.True(strings.Contains(first, "$1.50 of $25.00"))
}

type fakeLoader struct{ fail bool }

func (l fakeLoader) Detail(n int) (Detail, error) {
	if l.fail {
		return Detail{}, errors.New("not recorded")
	}
	return Detail{Sections: []Section{
		{Title: "Prompt", Text: fmt.Sprintf("prompt of iteration %d\n%s", n, strings.Repeat("line\n", 100))},
		{Title: "Diff", Text: "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new", Diff: true},
	}}, nil
}

func (l fakeLoader) CheckOutput(n, i int) (string, error) {
	return fmt.Sprintf("output of check %d in iteration %d\nFAIL: TestX", i, n), nil
}

func TestKeysSteerTheRun(t *testing.T) {
	is := is.New(t)
	var pauses []bool
	stops, interrupts := 0, 0
	c := Controls{
		Pause:     func(p bool) error { pauses = append(pauses, p); return nil },
		StopAfter: func() error { stops++; return nil },
		Interrupt: func() { interrupts++ },
	}
	f := newFake(Info{}, c, fakeLoader{})
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: checks3})
	f.iteration(1, checks3, []bool{true, false, true}, 0.1)

	f.key(keyText("p"))
	is.Equal(pauses, []bool{true})
	is.True(strings.Contains(f.screen(), "‖ pausing"))
	is.True(strings.Contains(f.screen(), "p resume"))
	f.key(keyText("p")) // before the loop paused: go on after all
	is.Equal(pauses, []bool{true, false})
	is.True(strings.Contains(f.screen(), "● running"))

	// Paused from another terminal: the view says so; p resumes.
	f.ev(runlog.Event{Type: runlog.EventPaused, Iteration: 1})
	is.True(strings.Contains(f.screen(), "‖ paused"))
	is.True(strings.Contains(f.screen(), "paused: p or `architect resume` goes on"))
	f.key(keyText("p"))
	is.Equal(pauses, []bool{true, false, false})
	f.ev(runlog.Event{Type: runlog.EventResumed, Iteration: 1})
	is.True(strings.Contains(f.screen(), "● running"))

	f.key(keyText("s"))
	f.key(keyText("s")) // asked once
	is.Equal(stops, 1)
	is.True(strings.Contains(f.screen(), "the loop stops once this iteration is recorded"))
	f.key(keyText("p")) // a pause would replace the stop asked
	is.Equal(len(pauses), 3)

	f.key(keyText("q"))
	is.Equal(interrupts, 1)
	is.True(strings.Contains(f.screen(), "‖ stopping"))
	f.key(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	is.Equal(interrupts, 2)
	is.True(strings.Contains(f.screen(), "killing the agent and the checks now"))
}

func TestOutputOfTheFailingCheck(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{}, Controls{}, fakeLoader{})
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: checks3})
	f.iteration(1, checks3, []bool{true, false, true}, 0.1)
	s := f.screen()
	is.True(strings.Contains(s, "── Output: golangci-lint run (failed in iteration 1)"))
	is.True(strings.Contains(s, "  output of check 1 in iteration 1\n  FAIL: TestX"))

	// The next iteration runs: the last failing output stays.
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 2})
	is.True(strings.Contains(f.screen(), "output of check 1 in iteration 1"))

	// Select another check: tab to the checks, up to the first.
	f.key(tea.KeyPressMsg{Code: tea.KeyTab})
	f.key(tea.KeyPressMsg{Code: tea.KeyTab})
	f.key(tea.KeyPressMsg{Code: tea.KeyUp})
	is.True(!strings.Contains(f.screen(), "── Output")) // go test ./... never failed

	f.key(tea.KeyPressMsg{Code: tea.KeyEscape}) // back to the one that failed last
	is.True(strings.Contains(f.screen(), "── Output: golangci-lint run (failed in iteration 1)"))
	f.ev(runlog.Event{Type: runlog.EventAgentFinished, Iteration: 2})
	f.ev(runlog.Event{Type: runlog.EventCheckFinished, Iteration: 2, Index: ptr(1), Passed: ptr(true), Duration: ptr(1.0)})
	is.True(!strings.Contains(f.screen(), "── Output")) // it passes now
}

func TestHistoryScrollsAndOpensDetail(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{}, Controls{}, fakeLoader{})
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 300})
	for n := 1; n <= 300; n++ {
		f.iteration(n, nil, nil, 0.01)
	}
	s := f.screen()
	is.True(strings.Contains(s, "#300"))
	is.True(!strings.Contains(s, "#100 ")) // only the newest fit

	for i := 0; i < 5; i++ {
		f.key(tea.KeyPressMsg{Code: tea.KeyPgUp})
	}
	sel := f.m.sel
	is.True(sel < 299)
	is.True(strings.Contains(f.screen(), fmt.Sprintf("#%d ", sel+1))) // the selection is on screen
	f.key(keyText("g"))
	is.True(strings.Contains(f.screen(), "  #1 "))

	f.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	s = f.screen()
	is.True(strings.Contains(s, "── Iteration 1 · lines 1-"))
	is.True(strings.Contains(s, "prompt of iteration 1"))
	f.key(keyText("2"))
	s = f.screen()
	is.True(strings.Contains(s, "+new"))
	is.True(strings.Contains(f.m.render(), styleGood.Render("+new"))) // a diff is coloured
	f.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	is.True(f.m.detail == nil)

	f.key(keyText("G")) // back to following the newest
	is.Equal(f.m.sel, -1)
	f.iteration(301, nil, nil, 0.01)
	is.True(strings.Contains(f.screen(), "#301"))
}

func TestDetailThatCannotLoad(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{}, Controls{}, fakeLoader{fail: true})
	f.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	is.True(strings.Contains(f.screen(), "no iteration has finished yet"))
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 3})
	f.iteration(1, nil, nil, 0)
	f.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	is.True(f.m.detail == nil)
	is.True(strings.Contains(f.screen(), "cannot show the iteration: not recorded"))
}

func TestWaitsAndTheEnd(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{}, Controls{}, nil)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 3})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1})
	f.ev(runlog.Event{Type: runlog.EventAgentFinished, Iteration: 1}) // cost unknown
	f.ev(runlog.Event{Type: runlog.EventUsageLimitWait, Iteration: 1, Seconds: ptr(600.0)})
	f.now = f.now.Add(30 * time.Second)
	s := f.screen()
	is.True(strings.Contains(s, "‖ waiting"))
	is.True(strings.Contains(s, "usage limit: waiting 9m30s, until"))
	f.ev(runlog.Event{Type: runlog.EventBackoff, Iteration: 1, Seconds: ptr(8.0), Attempt: 2})
	is.True(strings.Contains(f.screen(), "backoff: the agent failed 2 times in a row; retrying in 8s"))
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1, AllChecksPassed: ptr(false)})
	is.True(strings.Contains(f.screen(), "$0.0000+")) // an unknown cost is marked
	f.ev(runlog.Event{Type: runlog.EventLoopFinished, Success: ptr(false), StopReason: "max_iterations", StopDetail: "the limit of 3 iterations was reached", TotalIterations: ptr(1)})
	s = f.screen()
	is.True(strings.Contains(s, "✗ stopped: max_iterations"))
	is.True(strings.Contains(s, "finished after 1 iteration: the limit of 3 iterations was reached"))
	_, cmd := f.m.Update(finishMsg{})
	is.True(cmd != nil) // quits
}

func TestRecap(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{}, Controls{}, nil)
	is.Equal(f.m.recap(), []string(nil)) // never started: nothing
	f.m.logged("architect: working in worktree x on branch y")
	f.m.logged("architect: iteration 1/25: running the claude agent") // the view shows those itself
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25})
	for n := 1; n <= 20; n++ {
		f.iteration(n, nil, nil, 0.5)
	}
	f.ev(runlog.Event{Type: runlog.EventLoopFinished, Success: ptr(true), StopReason: "all_checks_passed", TotalIterations: ptr(20)})
	r := f.m.recap()
	is.Equal(len(r), 1+1+1+1+recapRows)
	is.Equal(r[0], "architect: working in worktree x on branch y")
	is.True(strings.Contains(ansi.Strip(r[1]), "✓ success · iteration 20/25 · $10.00"))
	is.Equal(ansi.Strip(r[2]), "  … 8 earlier iterations (architect report shows them all)")
	is.Equal(ansi.Strip(r[3]), "    #  checks      time    agent       cost  done") // the columns named, as in the view
	is.True(strings.HasPrefix(ansi.Strip(r[len(r)-1]), "  #20 "))
}

// A completion the agent declared while the checks failed shows in the
// done column, marked as not accepted; an accepted one as accepted; from
// events as from the records a resumed run starts with.
func TestDoneColumnShowsDeclaredCompletion(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{}, Controls{}, nil)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: []string{"go test ./..."}})
	f.iteration(1, []string{"go test ./..."}, []bool{false}, 0.5)
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 2, MaxIterations: 25})
	f.ev(runlog.Event{Type: runlog.EventCheckFinished, Iteration: 2, Check: "go test ./...", Index: ptr(0), Passed: ptr(false), ExitCode: ptr(1)})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, AllChecksPassed: ptr(false), CompletionTagFound: ptr(true)})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 3, MaxIterations: 25})
	f.ev(runlog.Event{Type: runlog.EventCheckFinished, Iteration: 3, Check: "go test ./...", Index: ptr(0), Passed: ptr(true), ExitCode: ptr(0)})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 3, AllChecksPassed: ptr(true), CompletionTagFound: ptr(true), CompletionSignal: "tag"})
	f.ev(runlog.Event{Type: runlog.EventLoopFinished, Success: ptr(true), StopReason: "all_checks_passed", TotalIterations: ptr(3)})
	r := f.m.recap()
	row := func(n int) string {
		for _, l := range r {
			if l := ansi.Strip(l); strings.HasPrefix(l, fmt.Sprintf("  #%d ", n)) {
				return l
			}
		}
		return ""
	}
	is.True(!strings.Contains(row(1), "tag"))                 // declared nothing
	is.True(strings.HasSuffix(row(2), "tag (checks failed)")) // declared, refused
	is.True(strings.HasSuffix(row(3), "tag"))                 // declared, accepted
	is.True(strings.Contains(row(3), "✓"))

	rows := Rows([]runlog.Iteration{
		{Iteration: 1, CompletionTagFound: true, CheckResults: []runlog.CheckResult{{Name: "t", Passed: false}}},
		{Iteration: 2, CompletionTagFound: true, AllChecksPassed: true, CompletionSignal: "tag", CheckResults: []runlog.CheckResult{{Name: "t", Passed: true}}},
	})
	is.Equal(rows[0].Declared, "tag")
	is.Equal(rows[0].Completion, "")
	is.Equal(rows[1].Completion, "tag")
}

func TestCleanText(t *testing.T) {
	is := is.New(t)
	is.Equal(clean("plain"), "plain")
	is.Equal(clean("a\tb"), "a    b")
	is.Equal(clean("\x1b[31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07"), "red link")
	is.Equal(clean("❤️ 👍🏽 👨‍👩‍👧"), "❤ 👍 👨👩👧")
	is.Equal(clean("bell\x07 del\x7f c1\u0085 ok"), "bell del c1 ok")
	is.Equal(cut("日本語テキスト", 7), "日本語…")
	is.Equal(width(fit("日本", 5)), 5)
	is.Equal(joinFit([]part{{"a", 2}, {"bbbb", 0}, {"cc", 1}}, " ", 7), "bbbb cc")
}

// BenchmarkView300 draws the screen of a run with 300 iterations of
// history, as every redraw does (the clock ticks twice a second).
func BenchmarkView300(b *testing.B) {
	f := newFake(Info{Task: "a long run"}, Controls{}, nil)
	f.size(120, 40)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 400, Checks: checks3})
	for n := 1; n <= 300; n++ {
		f.iteration(n, checks3, []bool{n%2 == 0, true, n%3 == 0}, 0.01, "Read auth.go", "Edit auth.go")
	}
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 301})
	b.ResetTimer()
	for b.Loop() {
		_ = f.m.View()
	}
}

// The view names the agent each iteration runs on: the one a usage-limit
// wait or a backoff is for, a switch to a fallback while its iteration
// runs, and in the history the iterations that ran on another agent.
func TestAgentsWaitsAndSwitches(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{Agent: "claude", Model: "sonnet"}, Controls{}, nil)
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 5, Agent: "claude", Model: "sonnet", Checks: checks3[:1]})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1, Agent: "claude", Model: "sonnet"})
	is.True(strings.Contains(f.screen(), "agent claude (sonnet) 0s"))
	f.ev(runlog.Event{Type: runlog.EventAgentFinished, Iteration: 1, Error: "usage limit"})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 1, AllChecksPassed: ptr(false), ChecksRun: ptr(false)})
	f.ev(runlog.Event{Type: runlog.EventUsageLimitWait, Iteration: 1, Seconds: ptr(3.0), Agent: "claude", Model: "sonnet"})
	s := f.screen()
	is.True(strings.Contains(s, "‖ waiting"))
	is.True(strings.Contains(s, "usage limit of claude (sonnet): waiting 3s, until "+t0.Add(3*time.Second).Local().Format("15:04:05")))
	f.ev(runlog.Event{Type: runlog.EventBackoff, Iteration: 1, Seconds: ptr(2.0), Attempt: 1, Agent: "claude", Model: "sonnet"})
	is.True(strings.Contains(f.screen(), "backoff: claude (sonnet) failed 1 times in a row; retrying in 2s"))

	f.ev(runlog.Event{Type: runlog.EventAgentSwitched, Iteration: 2, Agent: "codex", From: "claude:sonnet", Reason: "usage_limit"})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 2, Agent: "codex"})
	s = f.screen()
	is.True(strings.Contains(s, "agent codex 0s · switched from claude:sonnet (usage limit)"))
	f.ev(runlog.Event{Type: runlog.EventAgentFinished, Iteration: 2, Cost: ptr(0.5)})
	f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: 2, AllChecksPassed: ptr(true), Cost: ptr(0.5)})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 3, Agent: "codex"})
	s = f.screen()
	is.True(!strings.Contains(s, "switched from")) // said while iteration 2 ran only
	is.True(strings.Contains(s, "on codex"))       // iteration 2's row
	is.Equal(strings.Count(s, "on codex"), 1)      // iteration 1 ran on the run's own agent
	is.True(strings.Contains(s, "agent codex 0s"))

	// A resumed run's history comes from the records.
	rows := Rows([]runlog.Iteration{{Iteration: 1, Agent: "claude", Model: "sonnet"}, {Iteration: 2, Agent: "gemini"}})
	is.Equal(rows[0].Ran, "claude (sonnet)")
	is.Equal(rows[1].Ran, "gemini")

	// The batch board says which agent a task waits for, and a switch.
	b := &task{}
	b.apply(runlog.Event{Type: runlog.EventUsageLimitWait, Agent: "claude"}, t0)
	is.Equal(b.state, "usage limit of claude: waiting")
	b.apply(runlog.Event{Type: runlog.EventAgentSwitched, Agent: "codex"}, t0)
	is.Equal(b.state, "switched to codex")
}

// n opens a line for a note: keys are text there (q does not stop the
// run), enter sends it through Controls.Say, esc drops it, a paste joins
// its lines; ctrl+c still stops the run.
func TestNoteKey(t *testing.T) {
	is := is.New(t)
	var said []string
	interrupts := 0
	fail := false
	c := Controls{
		Say: func(s string) error {
			if fail {
				return errors.New("the loop has not started yet")
			}
			said = append(said, s)
			return nil
		},
		Interrupt: func() { interrupts++ },
	}
	f := newFake(Info{}, c, fakeLoader{})
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: checks3})
	f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: 1})
	is.True(strings.Contains(f.screen(), "n note"))

	f.key(keyText("n"))
	for _, k := range "use q p" {
		f.key(keyText(string(k)))
	}
	is.True(strings.Contains(f.screen(), "note for the agent: use q p▏"))
	is.Equal(interrupts, 0)
	f.key(tea.KeyPressMsg{Code: tea.KeyBackspace})
	f.m.Update(tea.PasteMsg{Content: "paste\nline  two\x1b[31m"})
	is.True(strings.Contains(f.screen(), "note for the agent: use q paste line two▏"))
	f.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	is.Equal(said, []string{"use q paste line two"})
	is.True(strings.Contains(f.screen(), "note queued: the next iteration's prompt carries it"))

	f.key(keyText("n"))
	f.key(keyText("x"))
	f.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	is.Equal(len(said), 1)
	is.True(strings.Contains(f.screen(), "note not sent"))

	f.key(keyText("n"))
	f.key(tea.KeyPressMsg{Code: tea.KeyEnter}) // empty
	is.Equal(len(said), 1)
	is.True(strings.Contains(f.screen(), "note not sent: it is empty"))

	fail = true
	f.key(keyText("n"))
	f.key(keyText("x"))
	f.key(tea.KeyPressMsg{Code: tea.KeyEnter})
	is.True(strings.Contains(f.screen(), "cannot send the note: the loop has not started yet"))

	f.key(keyText("n"))
	f.key(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	is.Equal(interrupts, 1)

	// Without a way to send notes (no Say), n does nothing.
	g := newFake(Info{}, Controls{}, nil)
	g.key(keyText("n"))
	is.True(!strings.Contains(g.screen(), "note for the agent"))
}

// An iteration whose last look failed is a failure in the history, with
// the look's words; one whose look passed is a success like any other.
func TestHistoryShowsTheLastLook(t *testing.T) {
	is := is.New(t)
	f := newFake(Info{Task: "t", Agent: "claude"}, Controls{}, nil)
	one := []string{"sh check.sh"}
	f.ev(runlog.Event{Type: runlog.EventLoopStarted, MaxIterations: 25, Checks: one})
	for n, fc := range []*runlog.FinalCheck{
		{Mode: "clean", Status: runlog.FinalFailed, Reason: "fails clean"},
		{Mode: "clean", Status: runlog.FinalPassed},
	} {
		f.ev(runlog.Event{Type: runlog.EventIterationStarted, Iteration: n + 1, MaxIterations: 25})
		f.ev(runlog.Event{Type: runlog.EventIterationFinished, Iteration: n + 1, AllChecksPassed: ptr(true), CompletionSignal: map[bool]string{true: "tag"}[n == 1],
			Duration: ptr(1.0), AgentDuration: ptr(1.0), ChecksDuration: ptr(0.0), ChecksRun: ptr(true), FinalCheck: fc})
	}
	s := f.screen()
	is.True(strings.Contains(s, "  #1  ✗ "))
	is.True(strings.Contains(s, "last look failed: fails clean"))
	is.True(strings.Contains(s, "  #2  ✓ "))
	is.True(!strings.Contains(s, "last look passed")) // the ✓ says it

	rows := Rows([]runlog.Iteration{{Iteration: 1, FinalCheck: &runlog.FinalCheck{Mode: "same", Status: runlog.FinalFailed, Reason: "flaky"}}})
	is.True(rows[0].FinalFailed)
	is.True(strings.Contains(rows[0].FinalText, "flaky"))
}
