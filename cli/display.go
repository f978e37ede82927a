package cli

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/architect-dev/architect/loop"
)

// display is the state of the live view, built from the loop's events, and
// its rendering into a frame of lines. It holds no terminal: liveView draws
// the frames, and tests read them.
type display struct {
	start          time.Time // the first event
	iteration, max int
	phase          string // phaseStarting, phaseAgent, …
	phaseStart     time.Time
	until          time.Time // end of a backoff or usage-limit wait
	agent          string    // the agent running, or waited for (AGENT[:MODEL])
	attempt        int
	cost           float64
	costUnknown    bool // an agent run did not report its cost
	activity       string
	checks         []checkLine
	success        bool
	stopReason     string
}

const (
	phaseStarting = "starting"
	phaseAgent    = "agent"
	phaseChecks   = "checks"
	phaseBackoff  = "backoff"
	phaseUsage    = "usage limit"
	phaseFinished = "finished"
)

type checkState int

const (
	checkPending checkState = iota
	checkRunning
	checkPassed
	checkFailed
)

type checkLine struct {
	name     string
	state    checkState
	started  time.Time
	duration float64 // seconds, once finished
	timedOut bool
}

// spinner frames, one per tick.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// eventTime is when ev happened, or now when its time cannot be read.
func eventTime(ev loop.Event, now time.Time) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, ev.Time); err == nil {
		return t
	}
	return now
}

// apply updates the state with one event.
func (d *display) apply(ev loop.Event, now time.Time) {
	t := eventTime(ev, now)
	if d.start.IsZero() {
		d.start, d.phase, d.phaseStart = t, phaseStarting, t
	}
	setPhase := func(p string) { d.phase, d.phaseStart = p, t }
	switch ev.Type {
	case loop.EventLoopStarted:
		d.max, d.iteration = ev.MaxIterations, ev.Iteration
		d.checks = d.checks[:0]
		for _, c := range ev.Checks {
			d.checks = append(d.checks, checkLine{name: c})
		}
	case loop.EventIterationStarted:
		d.iteration = ev.Iteration
		if ev.Agent != "" {
			d.agent = agentLabel(ev.Agent, ev.Model)
		}
		if ev.MaxIterations > 0 {
			d.max = ev.MaxIterations
		}
		d.activity = ""
		for i := range d.checks {
			d.checks[i] = checkLine{name: d.checks[i].name}
		}
		setPhase(phaseAgent)
	case loop.EventAgentActivity:
		d.activity = ev.Text
	case loop.EventAgentFinished:
		if ev.Cost != nil {
			d.cost += *ev.Cost
		} else {
			d.costUnknown = true
		}
		if len(d.checks) > 0 {
			setPhase(phaseChecks)
		}
	case loop.EventCheckStarted:
		if c := d.check(ev); c != nil {
			c.state, c.started = checkRunning, t
		}
		if d.phase != phaseChecks {
			setPhase(phaseChecks)
		}
	case loop.EventCheckFinished:
		if c := d.check(ev); c != nil {
			c.state = checkFailed
			if ev.Passed != nil && *ev.Passed {
				c.state = checkPassed
			}
			if ev.Duration != nil {
				c.duration = *ev.Duration
			}
			c.timedOut = ev.TimedOut
		}
	case loop.EventBackoff, loop.EventUsageLimitWait:
		if ev.Agent != "" {
			d.agent = agentLabel(ev.Agent, ev.Model)
		}
		setPhase(phaseBackoff)
		if ev.Type == loop.EventUsageLimitWait {
			setPhase(phaseUsage)
		}
		d.attempt = ev.Attempt
		d.until = t
		if ev.Seconds != nil {
			d.until = t.Add(time.Duration(*ev.Seconds * float64(time.Second)))
		}
	case loop.EventLoopFinished:
		setPhase(phaseFinished)
		d.success = ev.Success != nil && *ev.Success
		d.stopReason = ev.StopReason
		if ev.TotalIterations != nil {
			d.iteration = *ev.TotalIterations
		}
	}
}

// agentLabel names an agent and its model: "codex:gpt-5.5".
func agentLabel(name, model string) string {
	if model == "" {
		return name
	}
	return name + ":" + model
}

// check finds the check an event is about, by index then by name.
func (d *display) check(ev loop.Event) *checkLine {
	if ev.Index != nil && *ev.Index >= 0 && *ev.Index < len(d.checks) {
		return &d.checks[*ev.Index]
	}
	for i := range d.checks {
		if d.checks[i].name == ev.Check {
			return &d.checks[i]
		}
	}
	d.checks = append(d.checks, checkLine{name: ev.Check})
	return &d.checks[len(d.checks)-1]
}

// palette colours a frame; its zero value (NO_COLOR) leaves text plain.
type palette struct{ on bool }

func (p palette) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) green(s string) string  { return p.paint("32", s) }
func (p palette) red(s string) string    { return p.paint("31", s) }
func (p palette) yellow(s string) string { return p.paint("33", s) }
func (p palette) cyan(s string) string   { return p.paint("36", s) }
func (p palette) dim(s string) string    { return p.paint("2", s) }

// frame renders the state at now: a status line, the agent's latest
// activity, and one line per check. tick picks the spinner frame; width
// (columns, 0 for no limit) truncates every line.
func (d *display) frame(now time.Time, tick, width int, p palette) []string {
	spin := p.cyan(spinner[tick%len(spinner)])
	if d.start.IsZero() {
		return []string{fitWidth("architect "+spin+" starting", width)}
	}
	status := "architect " + spin
	var phase string
	switch d.phase {
	case phaseAgent:
		phase = "agent " + clock(now.Sub(d.phaseStart))
	case phaseChecks:
		phase = "checks"
	case phaseBackoff:
		phase = p.yellow(fmt.Sprintf("backoff: retrying in %s (attempt %d)", clock(d.until.Sub(now)), d.attempt))
	case phaseUsage:
		who := ""
		if d.agent != "" {
			who = " of " + d.agent
		}
		phase = p.yellow(fmt.Sprintf("waiting for the usage limit%s: %s left (until %s)", who, clock(d.until.Sub(now)), d.until.Local().Format("15:04:05")))
	case phaseFinished:
		status = "architect " + p.red("✗")
		phase = p.red("stopped: " + d.stopReason)
		if d.success {
			status, phase = "architect "+p.green("✓"), p.green("success")
		}
	default:
		phase = "starting"
	}
	iter := fmt.Sprintf("iteration %d/%d", d.iteration, d.max)
	cost := fmt.Sprintf("$%.4f", d.cost)
	if d.costUnknown {
		cost += "+"
	}
	end := now
	if d.phase == phaseFinished {
		end = d.phaseStart
	}
	lines := []string{strings.Join([]string{status + " " + iter, phase, "elapsed " + clock(end.Sub(d.start)), cost}, p.dim(" · "))}
	if d.activity != "" && d.phase != phaseFinished {
		lines = append(lines, "  "+p.dim("› "+d.activity))
	}
	for _, c := range d.checks {
		var mark, detail string
		switch c.state {
		case checkPending:
			mark = p.dim("·")
		case checkRunning:
			mark, detail = spin, clock(now.Sub(c.started))
		case checkPassed:
			mark, detail = p.green("✓"), seconds(c.duration)
		case checkFailed:
			mark, detail = p.red("✗"), seconds(c.duration)
			if c.timedOut {
				detail += " (timed out)"
			}
		}
		line := "  " + mark + " " + c.name
		if detail != "" {
			line += "  " + p.dim(detail)
		}
		lines = append(lines, line)
	}
	for i := range lines {
		lines[i] = fitWidth(lines[i], width)
	}
	return lines
}

// clock formats a duration for the live view: 7s, 1m05s, 2h03m.
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

func seconds(f float64) string { return fmt.Sprintf("%.1fs", f) }

// fitWidth cuts s to width visible columns (escape sequences take none;
// every rune is taken as one column), ending a cut line with "…" and
// resetting any colour. width 0 means no limit.
func fitWidth(s string, width int) string {
	if width <= 0 {
		return s
	}
	visible, cut := 0, -1
	for i := 0; i < len(s); {
		if s[i] == '\x1b' && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		visible++
		if visible == width && cut < 0 {
			cut = i // where "…" goes if the line is too long
		}
		if visible > width {
			out := s[:cut] + "…"
			if strings.Contains(out, "\x1b[") {
				out += "\x1b[0m"
			}
			return out
		}
		i += size
	}
	return s
}
