package merge

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteQueueSummary prints the queue's table: each task in the order it
// was taken, how it landed or why it was left, and its resolution loop's
// cost; then where the target is and what to do with it.
func WriteQueueSummary(w io.Writer, q *QueueResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ORDER\tTASK\tOUTCOME\tHOW\tRESOLUTION\tCOST\tTARGET AFTER")
	for _, e := range q.Tasks {
		order, how, res, cost, after := "-", "-", "-", "-", "-"
		if e.Order > 0 {
			order = fmt.Sprint(e.Order)
		}
		if e.How != "" {
			how = e.How
		}
		if r := e.Resolution; r != nil {
			res = fmt.Sprintf("%d iteration%s", r.Iterations, plural(r.Iterations))
			if !r.Success {
				res += ", " + r.StopReason
			}
			cost = resolutionCost(r)
		}
		if e.To != "" && e.Outcome == QueueMerged {
			after = short(e.To)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", order, e.ID, e.Outcome, how, res, cost, after)
	}
	_ = tw.Flush()
	for _, e := range q.Tasks {
		if e.Outcome == QueueLeft || e.Outcome == QueueNotRun {
			fmt.Fprintf(w, "architect: %s not merged, left on %s: %s\n", e.ID, e.Branch, e.Reason)
		}
	}
	fmt.Fprintf(w, "architect: %s is at %s with %d task%s merged", q.Target, short(q.End), q.Merged(), plural(q.Merged()))
	if q.Start != q.End {
		fmt.Fprintf(w, " (it was at %s)", short(q.Start))
	}
	fmt.Fprintf(w, "; bring it in with `git merge --ff-only %s`, or push it\n", q.Target)
	if q.Records != "" {
		fmt.Fprintf(w, "architect: the queue's records: %s\n", q.Records)
	}
}

// resolutionCost is a resolution loop's cost as the tables show costs.
func resolutionCost(r *Resolution) string {
	switch {
	case r.Cost != nil:
		return fmt.Sprintf("$%.4f", *r.Cost)
	case r.KnownCost > 0:
		return fmt.Sprintf("≥$%.4f", r.KnownCost)
	case r.Iterations == 0:
		return "-"
	}
	return "unknown"
}

// WriteQueueMarkdown writes the queue's account for people: what merged, in
// which order, at what cost, and what was left and why.
func WriteQueueMarkdown(w io.Writer, q *QueueResult) {
	fmt.Fprintf(w, "# Merge queue onto %s\n\n", q.Target)
	how := q.How
	if q.Squash {
		how += ", squashed"
	}
	fmt.Fprintf(w, "From %s to %s (%s); %d task%s merged.\n\n", short(q.Start), short(q.End), how, q.Merged(), plural(q.Merged()))
	if q.Stopped != "" {
		fmt.Fprintf(w, "The queue stopped: %s.\n\n", q.Stopped)
	}
	fmt.Fprintln(w, "| Order | Task | Outcome | How | Resolution | Cost | Target after | Reason |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, e := range q.Tasks {
		order, res, cost := "", "", ""
		if e.Order > 0 {
			order = fmt.Sprint(e.Order)
		}
		if r := e.Resolution; r != nil {
			res = fmt.Sprintf("%d iteration%s", r.Iterations, plural(r.Iterations))
			if !r.Success {
				res += ", " + r.StopReason
			}
			cost = resolutionCost(r)
		}
		after := ""
		if e.Outcome == QueueMerged {
			after = short(e.To)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", order, e.ID, e.Outcome, e.How, res, cost, after, strings.ReplaceAll(e.Reason, "|", "\\|"))
	}
}
