package loop

import (
	"fmt"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// logEvent appends one line to .architect/iterations.log:
// "2026-01-15T10:30:00 [START] iteration 1/25".
func (r *runner) logEvent(kind, format string, args ...any) {
	line := fmt.Sprintf("%s [%s] %s\n", r.deps.Now().Format("2006-01-02T15:04:05"), kind, fmt.Sprintf(format, args...))
	if err := appendFile(r.ws.state(runlog.IterationsLog), r.deps.Redact(line)); err != nil {
		r.warn("could not write the iterations log: " + err.Error())
	}
}

// human formats a duration the way the iterations log shows it: 5m42s.
func human(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return config.FormatDuration(d.Round(time.Second))
}
