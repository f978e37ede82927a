package github

import (
	"context"
	"fmt"
)

// Facts are what GitHub says about an issue before any agent starts.
type Facts struct {
	Issue   Issue
	PR      *PR      // the open pull request of Branch(issue); nil for none
	Checks  string   // the combined state of its head's checks (Checks*)
	Receipt *Receipt // the receipt its body carries; nil for none
}

// Facts reads issue n, its pull request and that pull request's checks.
func (c *Client) Facts(ctx context.Context, n int) (Facts, error) {
	var f Facts
	var err error
	if f.Issue, err = c.Issue(ctx, n); err != nil {
		return f, err
	}
	if f.Issue.State != "open" {
		return f, nil
	}
	if f.PR, err = c.FindPR(ctx, Branch(n)); err != nil || f.PR == nil {
		return f, err
	}
	f.Receipt = ReadReceipt(f.PR.Body)
	f.Checks, err = c.CheckState(ctx, f.PR.HeadSHA)
	return f, err
}

// Decide says whether an agent should start, and why in one line.
func (f Facts) Decide() (run bool, why string) {
	n := f.Issue.Number
	switch {
	case f.Issue.IsPR:
		return false, fmt.Sprintf("#%d is a pull request, not an issue: nothing to do", n)
	case f.Issue.State != "open":
		return false, fmt.Sprintf("issue #%d is %s: nothing to do", n, f.Issue.State)
	case f.PR == nil:
		return true, fmt.Sprintf("issue #%d is open and has no pull request yet", n)
	}
	pr := fmt.Sprintf("pull request #%d (head %s at %s)", f.PR.Number, f.PR.Head, short(f.PR.HeadSHA))
	if f.Receipt == nil || f.Receipt.Issue == nil || f.Receipt.Issue.Number != n {
		return true, pr + " carries no receipt of a run on this issue"
	}
	if f.Receipt.Issue.TextSHA256 != TextHash(f.Issue) {
		return true, fmt.Sprintf("issue #%d changed since %s was made (its run saw the issue as of %s)", n, pr, f.Receipt.Issue.UpdatedAt)
	}
	switch f.Checks {
	case ChecksSuccess:
		return false, fmt.Sprintf("%s has green checks and issue #%d has not changed since its run: nothing to do", pr, n)
	case ChecksPending:
		return false, fmt.Sprintf("%s has checks still running and issue #%d has not changed since its run: nothing to do until they end", pr, n)
	case ChecksNone:
		if f.Receipt.Success && f.Receipt.Head == f.PR.HeadSHA {
			return false, fmt.Sprintf("%s has no CI checks, its receipt says architect's checks passed on that head, and issue #%d has not changed: nothing to do", pr, n)
		}
		return true, pr + " has no checks, and no receipt of a success on its head"
	}
	return true, pr + " has failing checks"
}

// StillOpen is the loop's look between iterations: a stop detail when
// issue n was closed, "" while it is open (or cannot be read: a look that
// fails does not stop the work).
func (c *Client) StillOpen(ctx context.Context, n int) (closed string, err error) {
	is, err := c.Issue(ctx, n)
	if err != nil {
		return "", err
	}
	if is.State != "open" {
		return fmt.Sprintf("issue #%d was closed while the run worked on it", n), nil
	}
	return "", nil
}
