package hooks

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
)

// notify tells the user the loop ended: a desktop notification through
// notify-send where it is installed, the terminal bell otherwise.
func (o *Observer) notify(ctx context.Context, ev runlog.Event) {
	title, body := notification(ev)
	look := o.cfg.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look("notify-send")
	if err != nil {
		fmt.Fprint(o.cfg.Bell, "\a")
		return
	}
	// Not through the sandbox (Confine): the notification is architect's
	// own, and needs the desktop's session bus outside the workspace.
	res := proc.Run(ctx, path, []string{"--app-name=architect", title, body}, proc.Options{Dir: o.workspace, Timeout: o.cfg.Timeout})
	if res.StartErr != nil || res.ExitCode != 0 {
		fmt.Fprint(o.cfg.Bell, "\a")
		o.warn("notify-send failed (exit status %d); rang the bell instead", res.ExitCode)
	}
}

// notification is the title and body shown when the loop ends.
func notification(ev runlog.Event) (title, body string) {
	n := ev.Iteration
	if ev.TotalIterations != nil {
		n = *ev.TotalIterations
	}
	cost := ""
	if ev.TotalCost != nil {
		cost = fmt.Sprintf(", $%.2f", *ev.TotalCost)
	}
	if ev.Success != nil && *ev.Success && ev.NoChecks {
		return "architect: done, unchecked", fmt.Sprintf("the agent declared completion after %d iteration%s%s; no check was run", n, plural(n), cost)
	}
	if ev.Success != nil && *ev.Success {
		return "architect: success", fmt.Sprintf("all checks pass after %d iteration%s%s", n, plural(n), cost)
	}
	reason := strings.ReplaceAll(ev.StopReason, "_", " ")
	return "architect: no success", fmt.Sprintf("stopped on %s after %d iteration%s%s", reason, n, plural(n), cost)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
