package batch

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// WriteSummary prints the table of the tasks' results.
func WriteSummary(w io.Writer, rs []TaskResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tOUTCOME\tSTOP REASON\tITERATIONS\tCOST\tDURATION\tBRANCH")
	for _, r := range rs {
		stop := r.StopReason
		if stop == "" {
			stop = "-"
		}
		cost := fmt.Sprintf("$%.4f", r.KnownCost)
		switch {
		case r.CostKnown || r.Iterations == 0:
		case r.KnownCost == 0:
			cost = "unknown"
		default:
			cost = "≥" + cost // some iterations' cost unknown
		}
		dur := (time.Duration(r.Duration * float64(time.Second))).Round(100 * time.Millisecond).String()
		if r.Result == nil { // never ran
			cost, dur = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, r.Outcome, stop, r.Iterations, cost, dur, r.Branch)
	}
	_ = tw.Flush()
}
