package ghactions

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/architect-dev/architect/runlog"
)

// Task is one batch task's end, as the step summary and outputs show it.
type Task struct {
	ID, Outcome, StopReason string
	Success                 bool
	Iterations              int
	Branch                  string
	Error                   string         // why it could not run, if it could not
	Result                  *runlog.Result // nil when it never ran
	// PullRequests: the batch was asked for pull requests (the summary
	// gets a column for them). PullRequest and PullRequestURL are this
	// task's, 0 and "" for none; PullRequestError says why it has none.
	PullRequests     bool
	PullRequest      int
	PullRequestURL   string
	PullRequestError string
}

// The outcomes of a batch task that the outputs count (batch's names).
var batchOutcomes = []string{"succeeded", "failed", "cancelled", "skipped", "not_started", "error"}

// BatchSummary renders a batch's step summary: the outcome, then one
// table row per task (outcome, iterations, cost with what is known of
// it, branch).
func BatchSummary(tasks []Task) string {
	var b strings.Builder
	ok, n := 0, 0
	for _, t := range tasks {
		if t.Success {
			ok++
		}
		n++
	}
	if ok == n {
		fmt.Fprintf(&b, "## ✅ architect batch: %d of %d tasks succeeded\n\n", ok, n)
	} else {
		fmt.Fprintf(&b, "## ❌ architect batch: %d of %d tasks succeeded\n\n", ok, n)
	}
	c := batchCost(tasks)
	fmt.Fprintf(&b, "**Cost:** %s\n\n", c)
	prs := false
	for _, t := range tasks {
		prs = prs || t.PullRequests
	}
	if prs {
		b.WriteString("| Task | Outcome | Iterations | Cost | Branch | Pull request |\n|:---|:---|---:|---:|:---|:---|\n")
	} else {
		b.WriteString("| Task | Outcome | Iterations | Cost | Branch |\n|:---|:---|---:|---:|:---|\n")
	}
	for _, t := range tasks {
		outcome := t.Outcome
		if t.StopReason != "" && !t.Success {
			outcome += " (`" + strings.ReplaceAll(t.StopReason, "`", "") + "`)"
		}
		if t.Error != "" {
			outcome += ": " + t.Error
		}
		mark := "❌"
		if t.Success {
			mark = "✅"
		}
		cost, branch := "-", "-"
		if t.Result != nil {
			cost = t.Result.Cost().String()
			if t.Branch != "" {
				branch = "`" + strings.ReplaceAll(t.Branch, "`", "") + "`"
			}
		}
		fmt.Fprintf(&b, "| %s | %s %s | %d | %s | %s |", cell(t.ID), mark, cell(outcome), t.Iterations, cell(cost), cell(branch))
		if prs {
			pr := "-"
			switch {
			case t.PullRequest > 0:
				pr = fmt.Sprintf("[#%d](%s)", t.PullRequest, strings.ReplaceAll(t.PullRequestURL, ")", "%29"))
			case t.PullRequestError != "":
				pr = "❌ " + t.PullRequestError
			}
			fmt.Fprintf(&b, " %s |", cell(pr))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// batchCost is the batch's total cost: the sum of the tasks that ran.
func batchCost(tasks []Task) runlog.Cost {
	var c runlog.Cost
	for _, t := range tasks {
		if t.Result == nil {
			continue
		}
		rc := t.Result.Cost()
		c.Known += rc.Known
		c.Unknown += rc.Unknown
		c.Iterations += rc.Iterations
	}
	return c
}

// BatchOutputs are a batch's step outputs: success; total and a count per
// outcome (succeeded, failed, cancelled, skipped, not-started, error);
// total-cost (empty when some of it is unknown) and known-cost; branches,
// a JSON object of task id to branch for every task that ran;
// succeeded-branches, a JSON array of the succeeded tasks' branches;
// pull-requests, a JSON object of task id to {"number", "url"} for every
// task whose pull request was opened or updated ({} without any); and
// result-json, the --json document.
func BatchOutputs(tasks []Task, resultJSON []byte) []Output {
	counts := map[string]int{}
	success := true
	branches := map[string]string{}
	succeeded := []string{}
	for _, t := range tasks {
		counts[t.Outcome]++
		success = success && t.Success
		if t.Result != nil && t.Branch != "" {
			branches[t.ID] = t.Branch
			if t.Outcome == "succeeded" {
				succeeded = append(succeeded, t.Branch)
			}
		}
	}
	type pullRequest struct {
		Number int    `json:"number"`
		URL    string `json:"url"`
	}
	prs := map[string]pullRequest{}
	for _, t := range tasks {
		if t.PullRequest > 0 {
			prs[t.ID] = pullRequest{t.PullRequest, t.PullRequestURL}
		}
	}
	pj, _ := json.Marshal(prs)
	bj, _ := json.Marshal(branches)
	sj, _ := json.Marshal(succeeded)
	c := batchCost(tasks)
	total := ""
	if t := c.Total(); t != nil {
		total = strconv.FormatFloat(*t, 'f', -1, 64)
	}
	outs := []Output{{"success", strconv.FormatBool(success)}, {"total", strconv.Itoa(len(tasks))}}
	for _, o := range batchOutcomes {
		outs = append(outs, Output{strings.ReplaceAll(o, "_", "-"), strconv.Itoa(counts[o])})
	}
	return append(outs,
		Output{"total-cost", total},
		Output{"known-cost", strconv.FormatFloat(c.Known, 'f', -1, 64)},
		Output{"branches", string(bj)},
		Output{"succeeded-branches", string(sj)},
		Output{"pull-requests", string(pj)},
		Output{"result-json", string(resultJSON)},
	)
}
