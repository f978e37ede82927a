package runlog

import (
	"encoding/json"
	"os"
	"time"
)

// Steering a run from outside, through the control file (WriteControl):
// `architect pause` and `resume`, `architect cancel`, and the terminal
// view's keys (p, s). The loop tells the watchers what it did with events
// (EventPaused, EventResumed), so that a view shows a pause asked from
// another terminal.

// Control actions.
const (
	ControlPause  = "pause"
	ControlResume = "resume"
	ControlCancel = "cancel"
	// ControlStop asks the loop to stop once the iteration running is
	// recorded (before the next one starts, or during a wait).
	ControlStop = "stop"
)

// Control is a request written by `architect pause`, `architect resume`
// and `architect cancel` to .architect/control.json.
type Control struct {
	Action string `json:"action"` // pause, resume or cancel
	At     string `json:"at"`
}

// WriteControl asks the loop in workspace to pause or resume.
func WriteControl(workspace, action string) error {
	data, _ := json.Marshal(Control{Action: action, At: Stamp(time.Now())})
	return writeFile(Path(workspace, ControlFile), append(data, '\n'), 0o600)
}

// ReadControl is the request in the control file at path: pause, resume,
// cancel, stop or "" (none, or not one that can be read).
func ReadControl(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var c Control
	if json.Unmarshal(data, &c) != nil {
		return ""
	}
	return c.Action
}
