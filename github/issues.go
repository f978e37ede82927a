package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v74/github"
)

// maxIssuePages bounds the pages ListIssues reads (100 issues a page): a
// server whose next-page link never ends cannot keep it asking forever.
const maxIssuePages = 50

// ListIssues is every open issue with label, oldest first, page after
// page. The pull requests the issues API returns too are left out.
func (c *Client) ListIssues(ctx context.Context, label string) ([]Issue, error) {
	opts := &gh.IssueListByRepoOptions{State: "open", Labels: []string{label}, Sort: "created", Direction: "asc",
		ListOptions: gh.ListOptions{PerPage: 100}}
	var out []Issue
	for page := 0; ; page++ {
		if page == maxIssuePages {
			return out, fmt.Errorf("list the issues labelled %q: more than %d pages", label, maxIssuePages)
		}
		list, resp, err := c.gh.Issues.ListByRepo(ctx, c.Owner, c.Name, opts)
		if err != nil {
			return nil, refused(err, fmt.Sprintf("list the issues labelled %q", label), PermIssuesRead)
		}
		for _, is := range list {
			if is.IsPullRequest() {
				continue
			}
			out = append(out, Issue{Number: is.GetNumber(), Title: is.GetTitle(), Body: is.GetBody(), State: is.GetState(),
				UpdatedAt: is.GetUpdatedAt().Time})
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
		opts.ListOptions.Page = resp.NextPage
	}
}
