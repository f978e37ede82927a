package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Controls are what the keys do to the run. The command line provides
// them; each may be nil (the key then does nothing).
type Controls struct {
	// Pause asks the loop to pause before its next step (true) or to go on
	// (false), as `architect pause` and `architect resume` do.
	Pause func(pause bool) error
	// StopAfter asks the loop to stop once the current iteration is
	// recorded.
	StopAfter func() error
	// Interrupt is Ctrl-C: the first call stops the run gracefully, the
	// next kills the agent and the checks at once.
	Interrupt func()
	// Say queues a note that the next iteration's prompt carries, as
	// `architect say` does (the n key).
	Say func(text string) error
}

// Loader reads what the view shows on demand from the run's records (an
// iteration's detail, a check's output), off the UI's goroutine.
type Loader interface {
	Detail(iteration int) (Detail, error)
	CheckOutput(iteration, index int) (string, error)
}

// Detail is what Enter shows about one iteration.
type Detail struct {
	Iteration int
	Sections  []Section
}

// Section is one tab of the detail view.
type Section struct {
	Title string
	Text  string
	Diff  bool // colour + and - lines; do not wrap
}

// Messages of the run's model.
type (
	logMsg    string    // a line the loop logged
	tickMsg   time.Time // the clock
	finishMsg struct{}  // the run is over: leave
	detailMsg struct {
		d   Detail
		err error
	}
	outputMsg struct {
		iteration, index int
		text             string
		err              error
	}
)

// Focus: which pane the arrows move.
const (
	focusHistory = iota
	focusActivity
	focusChecks
	focusCount
)

// noteFor is how long the answer to a key stays on the screen.
const noteFor = 8 * time.Second

// tickEvery is how often the view redraws on its own (clocks, spinner).
const tickEvery = 500 * time.Millisecond

// Model is the run's view: Bubble Tea's Elm shape, fed by events.
type Model struct {
	run      *run
	now      func() time.Time
	controls Controls
	loader   Loader
	w, h     int
	tick     int
	focus    int
	// History: sel is the selected row (-1: follow the newest), top the
	// first row shown. Activity: back is how many lines the view is
	// scrolled up from the newest (0: follow). checkSel is the check whose
	// output is shown (-1: the one that failed last).
	sel, top int
	back     int
	checkSel int
	output   output
	detail   *detailView
	help     bool
	// What the user asked for, shown until the loop acts on it.
	pauseAsked, stopAsked bool
	interrupts            int
	note                  string
	noteAt                time.Time
	input                 noteInput // the note being typed (the n key)
	done                  bool
}

// output is the last output of the selected check, as loaded.
type output struct {
	iteration, index int
	lines            []string
	loaded, failed   bool
}

// NewModel returns the view of a run described by info.
func NewModel(info Info, c Controls, l Loader, now func() time.Time) *Model {
	if now == nil {
		now = time.Now
	}
	return &Model{run: newRun(info), now: now, controls: c, loader: l, sel: -1, checkSel: -1, w: 80, h: 24, output: output{iteration: -1}}
}

func tick() tea.Cmd {
	return tea.Tick(tickEvery, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Init starts the clock.
func (m *Model) Init() tea.Cmd { return tick() }

// Update applies one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tickMsg:
		m.tick++
		return m, tick()
	case eventMsg:
		return m, m.event(msg)
	case logMsg:
		m.logged(string(msg))
	case finishMsg:
		m.done = true
		return m, tea.Quit
	case detailMsg:
		if msg.err != nil {
			m.say("cannot show the iteration: " + clean(msg.err.Error()))
			m.detail = nil
			return m, nil
		}
		if m.detail != nil && m.detail.d.Iteration == msg.d.Iteration {
			m.detail.load(msg.d)
		}
	case outputMsg:
		if msg.iteration == m.output.iteration && msg.index == m.output.index {
			m.output.loaded, m.output.failed = true, msg.err != nil
			m.output.lines = nil
			if msg.err == nil {
				m.output.lines = cleanLines(msg.text)
			}
		}
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.input.open {
			m.typeNote(msg.Content)
		}
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			return m, m.key(tea.KeyPressMsg{Code: tea.KeyUp})
		}
		return m, m.key(tea.KeyPressMsg{Code: tea.KeyDown})
	}
	return m, nil
}

// event applies a loop event, and loads what it makes worth showing.
func (m *Model) event(msg eventMsg) tea.Cmd {
	m.run.applyMsg(msg, m.now())
	if m.run.paused || m.run.finished {
		m.pauseAsked = false
	}
	if m.output.failed && msg.recorded() {
		m.output = output{iteration: -1} // the records have more now: load again
	}
	return m.wantOutput()
}

// logged takes one of the loop's log lines: the per-iteration lines are
// what the view shows already; the others (warnings, pauses, hooks) are
// kept as messages.
func (m *Model) logged(line string) {
	line = clean(line)
	if line == "" || isIterationLine(line) {
		return
	}
	m.run.messages.add(line)
}

// wantOutput asks for the output of the check to show: the selected one,
// else the first that failed in the latest iteration that ran checks.
func (m *Model) wantOutput() tea.Cmd {
	iteration, index := m.outputTarget()
	if index < 0 || m.loader == nil {
		m.output = output{iteration: -1}
		return nil
	}
	if iteration == m.output.iteration && index == m.output.index {
		return nil
	}
	m.output = output{iteration: iteration, index: index}
	l := m.loader
	return func() tea.Msg {
		text, err := l.CheckOutput(iteration, index)
		return outputMsg{iteration: iteration, index: index, text: text, err: err}
	}
}

// outputTarget is the check whose last failing output the output pane
// shows, and the iteration it failed in: the selected check, else the one
// that failed most recently (the first of them); -1 when none failed.
func (m *Model) outputTarget() (iteration, index int) {
	cs := m.run.checks
	if m.checkSel >= 0 && m.checkSel < len(cs) {
		if cs[m.checkSel].lastFail == 0 {
			return -1, -1
		}
		return cs[m.checkSel].lastFail, m.checkSel
	}
	iteration, index = -1, -1
	for i, c := range cs {
		if c.failing && c.lastFail > iteration {
			iteration, index = c.lastFail, i
		}
	}
	return iteration, index
}
