package tui

import (
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/architect-dev/architect/usererr"
)

// task is one row of the batch board.
type task struct {
	id         string
	state      string
	iteration  int
	max        int
	cost       float64 // known cost, earlier sessions included
	iterCost   float64 // the running iteration's agent cost, once reported
	costGaps   bool
	started    time.Time
	ended      time.Time
	finished   bool
	success    bool
	stopReason string
	activity   string
	// cands and candsDone count the running round's candidates
	// (--candidates): started, finished.
	cands, candsDone int
}

// Outcome is how a batch task ended, for the board (batch.TaskResult).
type Outcome struct {
	ID         string
	Outcome    string // succeeded, failed, cancelled, skipped, not_started, error
	Success    bool
	StopReason string
	Iterations int
	Cost       float64
	CostKnown  bool
	Duration   float64
}

// BoardModel is a batch's view: totals, then one row per task, scrolled
// so that the screen stays bounded however many tasks there are.
type BoardModel struct {
	tasks      []*task
	byID       map[string]*task
	now        func() time.Time
	start      time.Time
	w, h       int
	tick       int
	top        int
	follow     bool
	help       bool
	interrupt  func()
	interrupts int
	note       string
}

// NewBoardModel returns the board of the tasks ids, in order.
func NewBoardModel(ids []string, interrupt func(), now func() time.Time) *BoardModel {
	if now == nil {
		now = time.Now
	}
	b := &BoardModel{byID: map[string]*task{}, now: now, start: now(), w: 80, h: 24, follow: true, interrupt: interrupt}
	for _, id := range ids {
		t := &task{id: clean(id), state: "queued"}
		b.tasks = append(b.tasks, t)
		b.byID[id] = t
	}
	return b
}

type (
	boardEvent struct {
		id string
		eventMsg
	}
	boardDone Outcome
)

func (b *BoardModel) Init() tea.Cmd { return tick() }

func (b *BoardModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		b.w, b.h = msg.Width, msg.Height
	case tickMsg:
		b.tick++
		return b, tick()
	case boardEvent:
		if t := b.byID[msg.id]; t != nil && !t.finished {
			t.apply(msg.ev, b.now())
		}
	case boardDone:
		if t := b.byID[msg.ID]; t != nil {
			t.finish(Outcome(msg), b.now())
		}
	case logMsg:
		b.note = clean(string(msg))
	case finishMsg:
		return b, tea.Quit
	case tea.KeyPressMsg:
		b.key(msg.String())
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			b.key("up")
		} else {
			b.key("down")
		}
	}
	return b, nil
}

func (b *BoardModel) key(k string) {
	if b.help && k != "ctrl+c" {
		b.help = false
		return
	}
	rows := b.rowsShown()
	switch k {
	case "ctrl+c", "q":
		b.interrupts++
		b.note = "stopping every task gracefully (press q or ctrl+c again to kill the agents and checks)"
		if b.interrupts > 1 {
			b.note = "killing the agents and checks now"
		}
		if b.interrupt != nil {
			b.interrupt()
		}
	case "?":
		b.help = true
	case "up", "k":
		b.top, b.follow = b.top-1, false
	case "down", "j":
		b.top, b.follow = b.top+1, false
	case "pgup":
		b.top, b.follow = b.top-rows, false
	case "pgdown", "space":
		b.top, b.follow = b.top+rows, false
	case "home", "g":
		b.top, b.follow = 0, false
	case "end", "G":
		b.follow = true
	}
}

func (t *task) finish(o Outcome, now time.Time) {
	t.finished, t.success = true, o.Success
	t.state, t.stopReason = o.Outcome, o.StopReason
	t.iteration, t.cost, t.iterCost, t.costGaps = o.Iterations, o.Cost, 0, !o.CostKnown && o.Iterations > 0
	if !t.started.IsZero() && t.ended.IsZero() {
		t.ended = now
	}
	if t.started.IsZero() && o.Duration > 0 {
		t.ended = now
		t.started = now.Add(-time.Duration(o.Duration * float64(time.Second)))
	}
}

// totals are the figures of the board's first line.
func (b *BoardModel) totals() (done, passing, running, queued int, cost float64, gaps bool) {
	for _, t := range b.tasks {
		switch {
		case t.finished:
			done++
			if t.success {
				passing++
			}
		case t.started.IsZero():
			queued++
		default:
			running++
		}
		cost += t.cost + t.iterCost
		gaps = gaps || t.costGaps
	}
	return
}

// View draws the board.
func (b *BoardModel) View() tea.View {
	v := tea.NewView(b.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	done, _, _, _, _, _ := b.totals()
	v.WindowTitle = fmt.Sprintf("architect batch: %d/%d done", done, len(b.tasks))
	return v
}

// rowsShown is how many task rows fit under the totals, the title, the
// column heads, and above the key line.
func (b *BoardModel) rowsShown() int { return max(b.h-6, 1) }

func (b *BoardModel) render() string {
	if b.w < 1 || b.h < 1 {
		return ""
	}
	var lines []string
	if b.help {
		lines = []string{title("Keys", b.w, true), "",
			"  " + paint(styleKey, "q, ctrl+c") + "  stop every task gracefully (state saved); again: kill at once",
			"  " + paint(styleKey, "↑ ↓ pgup pgdn") + "  scroll the tasks",
			"  " + paint(styleKey, "home end") + "  the first task; end follows the running ones again",
			"", paint(styleDim, "  `architect status --worktree-name ID` shows one task; `architect report` each task's page."),
			paint(styleDim, "  Press any key to go back.")}
	} else {
		lines = b.lines()
	}
	for len(lines) < b.h {
		lines = append(lines, "")
	}
	lines = lines[:b.h]
	for i, l := range lines {
		lines[i] = fit(l, b.w)
	}
	return strings.Join(lines, "\n")
}

func (b *BoardModel) lines() []string {
	done, passing, running, queued, cost, gaps := b.totals()
	c := money(cost)
	if gaps {
		c += "+"
	}
	head := joinFit([]part{
		{paint(styleBold, "architect batch"), 5},
		{fmt.Sprintf("%d/%d done", done, len(b.tasks)), 0},
		{paint(styleGood, fmt.Sprintf("%d passing", passing)), 2},
		{paint(styleInfo, fmt.Sprintf("%d running", running)), 1},
		{fmt.Sprintf("%d queued", queued), 4},
		{c, 0},
		{clock(b.now().Sub(b.start)), 3},
	}, paint(styleDim, " · "), b.w)
	note := b.note
	if note != "" {
		note = paint(styleWarn, note)
	}
	idw := 4
	for _, t := range b.tasks {
		idw = min(max(idw, width(t.id)), 24)
	}
	out := []string{head, note, title(fmt.Sprintf("Tasks (%d)", len(b.tasks)), b.w, false),
		paint(styleDim, "  "+fit("TASK", idw)+"  "+fit("STATE", 28)+"  "+right("ITER", 7)+"  "+right("COST", 9)+"  "+right("TIME", 6)+"  ACTIVITY")}
	show := b.rowsShown()
	if b.follow { // keep the first unfinished task at the top
		b.top = len(b.tasks)
		for i, t := range b.tasks {
			if !t.finished {
				b.top = i
				break
			}
		}
	}
	b.top = min(max(b.top, 0), max(len(b.tasks)-show, 0))
	for _, t := range b.tasks[b.top:min(b.top+show, len(b.tasks))] {
		out = append(out, b.row(t, idw))
	}
	if hidden := len(b.tasks) - show; hidden > 0 {
		out = append(out, paint(styleDim, fmt.Sprintf("  %d more: ↑ ↓ pgup pgdn scroll", hidden)))
	}
	for len(out) < b.h-1 {
		out = append(out, "")
	}
	keys := paint(styleKey, "q") + " " + paint(styleDim, "stop all") + paint(styleDim, " · ") + paint(styleKey, "↑↓") + " " + paint(styleDim, "scroll") + paint(styleDim, " · ") + paint(styleKey, "?") + " " + paint(styleDim, "help")
	return append(out[:b.h-1], keys)
}

func (b *BoardModel) row(t *task, idw int) string {
	var state string
	switch {
	case t.finished && t.success:
		state = paint(styleGood, "✓ "+t.state)
	case t.finished:
		s := "✗ " + t.state
		if t.stopReason != "" && t.state != "skipped" {
			s += " (" + t.stopReason + ")"
		}
		state = paint(styleBad, s)
	case t.started.IsZero():
		state = paint(styleDim, "· queued")
	default:
		state = paint(styleInfo, spinner[b.tick%len(spinner)]) + " " + t.state
	}
	iter := ""
	if t.max > 0 || t.iteration > 0 {
		iter = fmt.Sprintf("%d/%d", t.iteration, t.max)
		if t.max == 0 {
			iter = fmt.Sprint(t.iteration)
		}
	}
	cost := ""
	if !t.started.IsZero() || t.finished {
		cost = money(t.cost + t.iterCost)
		if t.costGaps {
			cost += "+"
		}
	}
	el := ""
	switch {
	case !t.ended.IsZero():
		el = clock(t.ended.Sub(t.started))
	case !t.started.IsZero():
		el = clock(b.now().Sub(t.started))
	}
	act := ""
	if !t.finished {
		act = paint(styleDim, t.activity)
	}
	return "  " + fit(t.id, idw) + "  " + fit(state, 28) + "  " + right(iter, 7) + "  " + right(cost, 9) + "  " + right(el, 6) + "  " + act
}

// Board is a batch's full-screen view on a terminal.
type Board struct {
	s     *screen
	model *BoardModel
	buf   lineBuffer
	once  sync.Once
}

// Write shows architect's own lines (a signal received) on the board.
func (b *Board) Write(p []byte) (int, error) {
	for _, line := range b.buf.lines(p) {
		b.s.send(logMsg(line))
	}
	return len(p), nil
}

// StartBoard shows the tasks ids on o.Out; interrupt is Ctrl-C.
func StartBoard(ids []string, interrupt func(), o Options) *Board {
	m := NewBoardModel(ids, interrupt, o.Now)
	return &Board{s: startScreen(m, o), model: m}
}

// Finish shows how task o.ID ended.
func (b *Board) Finish(o Outcome) { b.s.send(boardDone(o)) }

// Stop ends the board; the summary table printed next takes its place.
func (b *Board) Stop() {
	b.once.Do(func() {
		if _, err := b.s.finish(); err != nil {
			usererr.Say(b.s.out, usererr.LevelWarning, "the terminal view ended: %v", err)
		}
	})
}
