package intake

import (
	"context"
	"fmt"
	"strings"

	"github.com/architect-dev/architect/batch"
	"github.com/architect-dev/architect/github"
	"github.com/architect-dev/architect/usererr"
)

// GitHubIssues is the --from source that reads GitHub issues.
const GitHubIssues = "github-issues"

// UnknownSource is the error for a --from that is neither github-issues
// nor a file.
func UnknownSource(from string) error {
	return &usererr.Error{Msg: fmt.Sprintf("--from %q: unknown source of tasks", from),
		Hint: "--from github-issues --label NAME reads open issues; --from FILE.md reads the checklist items (- [ ] ...) of a Markdown plan"}
}

// PlanSpecs is the batch tasks of a plan's unticked items. A plan with no
// checklist item at all is an error; one whose items are all ticked has
// no task (nil, nil).
func PlanSpecs(p *Plan) ([]batch.Spec, error) {
	if len(p.Items) == 0 {
		return nil, &usererr.Error{Msg: "--from " + p.Path + ": the plan has no checklist items",
			Hint: "write each task as a Markdown checklist item on a line of its own: - [ ] add the login form (or * [ ], 1. [ ])"}
	}
	var out []batch.Spec
	for _, it := range p.Pending() {
		out = append(out, batch.Spec{ID: it.ID, Task: TaskText(p.Path, it)})
	}
	return out, nil
}

// Lister reads a repository's open issues with a label (github.Client).
type Lister interface {
	ListIssues(ctx context.Context, label string) ([]github.Issue, error)
}

// IssueSpecs is a batch task for each open issue with label: its ID is
// issue-N (the worktree name architect github gives the issue, so branch
// architect/issue-N), its text the issue's title and body (data, never
// run by a shell), the body cut past 64 KiB with the cut said in the text
// and in the returned notes.
func IssueSpecs(ctx context.Context, c Lister, label string) ([]batch.Spec, []string, error) {
	issues, err := c.ListIssues(ctx, label)
	if err != nil {
		return nil, nil, err
	}
	specs, notes := IssueSpecsOf(issues)
	return specs, notes, nil
}

// IssueSpecsOf is IssueSpecs for issues already listed.
func IssueSpecsOf(issues []github.Issue) ([]batch.Spec, []string) {
	var specs []batch.Spec
	var notes []string
	for _, is := range issues {
		specs = append(specs, batch.Spec{ID: github.WorktreeName(is.Number), Task: github.Task(is, ""), Issue: is.Number})
		if n := len(strings.TrimSpace(is.Body)); n > github.MaxIssueBytes {
			notes = append(notes, fmt.Sprintf("issue #%d: its body of %d bytes is cut to %d in the task", is.Number, n, github.MaxIssueBytes))
		}
	}
	return specs, notes
}
