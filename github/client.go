// Package github is architect's side of the GitHub REST API, through
// google/go-github: the pull request of a run (found by its head branch,
// opened or updated, never duplicated), the comment on an issue that
// started the run, the facts read before any agent starts (is the issue
// open, has it a pull request, with which checks), and the run receipt.
// It reads a run through runlog and never imports loop.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v74/github"

	"github.com/architect-dev/architect/usererr"
)

// The permissions a workflow grants its GITHUB_TOKEN, as the hints name
// them (the job's permissions: key).
const (
	PermContents     = "contents: write"
	PermPullRequests = "pull-requests: write"
	PermIssues       = "issues: write"
	PermIssuesRead   = "issues: read"
	PermChecksRead   = "checks: read"
)

// Options say which API and repository to talk to, and as whom.
type Options struct {
	APIURL string // "" means https://api.github.com/ (GITHUB_API_URL on a runner, GitHub Enterprise included)
	Token  string
	Repo   string // OWNER/NAME (GITHUB_REPOSITORY)
	// HTTP is the transport's client; nil means one with a 30 s timeout.
	HTTP *http.Client
}

// Client talks to one repository.
type Client struct {
	gh          *gh.Client
	Owner, Name string
}

// TokenFrom is the token architect uses: the first of the given values
// that is set (the action's input, then GITHUB_TOKEN, then GH_TOKEN).
func TokenFrom(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// New makes a client, refusing without a token or a repository.
func New(o Options) (*Client, error) {
	if o.Token == "" {
		return nil, &usererr.Error{Msg: "no GitHub token: GITHUB_TOKEN and GH_TOKEN are empty",
			Hint: "pass github-token to the action (it defaults to the workflow's token) or set GITHUB_TOKEN; the job needs `permissions:` " +
				PermContents + ", " + PermPullRequests + ", " + PermIssues}
	}
	owner, name, ok := strings.Cut(o.Repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, &usererr.Error{Msg: fmt.Sprintf("no repository to work on: %q is not OWNER/NAME", o.Repo),
			Hint: "set GITHUB_REPOSITORY=OWNER/NAME (a runner sets it) or pass --repo OWNER/NAME"}
	}
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	c := gh.NewClient(hc).WithAuthToken(o.Token)
	if o.APIURL != "" {
		u, err := url.Parse(strings.TrimSuffix(o.APIURL, "/") + "/")
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, &usererr.Error{Msg: fmt.Sprintf("GITHUB_API_URL %q is not a URL", o.APIURL), Hint: "set it to the API's base, e.g. https://github.example.com/api/v3"}
		}
		c.BaseURL = u
	}
	return &Client{gh: c, Owner: owner, Name: name}, nil
}

// refused turns an API error into one a user can act on: a 401, 403 or
// 404 from a call that needs perm names the permission to add to the
// workflow; anything else says what failed.
func refused(err error, doing, perm string) error {
	if err == nil {
		return nil
	}
	var re *gh.ErrorResponse
	if errors.As(err, &re) && re.Response != nil {
		code := re.Response.StatusCode
		msg := fmt.Sprintf("GitHub refused to %s (HTTP %d: %s)", doing, code, re.Message)
		switch code {
		case http.StatusUnauthorized:
			return &usererr.Error{Msg: msg, Hint: "the token is not valid: pass a current one as github-token or GITHUB_TOKEN", Err: err}
		case http.StatusForbidden, http.StatusNotFound:
			return &usererr.Error{Msg: msg, Hint: "add `" + perm + "` to the job's `permissions:` in the workflow (or give the token that scope)", Err: err}
		}
		return &usererr.Error{Msg: msg, Hint: "see the response above; retry the run when GitHub answers again", Err: err}
	}
	return &usererr.Error{Msg: fmt.Sprintf("could not %s: %v", doing, err), Hint: "check GITHUB_API_URL and the network", Err: err}
}

// Issue is what architect reads of an issue.
type Issue struct {
	Number    int
	Title     string
	Body      string
	State     string // open or closed
	UpdatedAt time.Time
	IsPR      bool // the number is a pull request's
}

// Issue reads issue n.
func (c *Client) Issue(ctx context.Context, n int) (Issue, error) {
	is, _, err := c.gh.Issues.Get(ctx, c.Owner, c.Name, n)
	if err != nil {
		return Issue{}, refused(err, fmt.Sprintf("read issue #%d", n), PermIssuesRead)
	}
	return Issue{Number: is.GetNumber(), Title: is.GetTitle(), Body: is.GetBody(), State: is.GetState(),
		UpdatedAt: is.GetUpdatedAt().Time, IsPR: is.IsPullRequest()}, nil
}

// Permission is user's permission on the repository: admin, maintain,
// write, triage, read or none.
func (c *Client) Permission(ctx context.Context, user string) (string, error) {
	p, _, err := c.gh.Repositories.GetPermissionLevel(ctx, c.Owner, c.Name, user)
	if err != nil {
		var re *gh.ErrorResponse
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusNotFound {
			return "none", nil // not a collaborator
		}
		return "", refused(err, "read @"+user+"'s permission", "contents: read")
	}
	if rn := p.GetRoleName(); rn == "maintain" {
		return rn, nil // the permission field says write for maintainers
	}
	return p.GetPermission(), nil
}

// CanWrite reports whether a permission lets its holder start a run.
func CanWrite(perm string) bool {
	switch perm {
	case "admin", "maintain", "write":
		return true
	}
	return false
}

// PR is what architect reads of a pull request.
type PR struct {
	Number  int
	URL     string
	Head    string // its head branch
	HeadSHA string
	Body    string
	Draft   bool
}

func prOf(p *gh.PullRequest) *PR {
	return &PR{Number: p.GetNumber(), URL: p.GetHTMLURL(), Head: p.GetHead().GetRef(), HeadSHA: p.GetHead().GetSHA(), Body: p.GetBody(), Draft: p.GetDraft()}
}

// FindPR is the open pull request whose head is branch of this
// repository, or nil.
func (c *Client) FindPR(ctx context.Context, branch string) (*PR, error) {
	prs, _, err := c.gh.PullRequests.List(ctx, c.Owner, c.Name, &gh.PullRequestListOptions{State: "open", Head: c.Owner + ":" + branch})
	if err != nil {
		return nil, refused(err, "list the pull requests of "+branch, "pull-requests: read")
	}
	for _, p := range prs {
		if p.GetHead().GetRef() == branch {
			return prOf(p), nil
		}
	}
	return nil, nil
}

// PRSpec is the pull request a run asks for.
type PRSpec struct {
	Head, Base, Title, Body string
	Draft                   bool
	Labels, Reviewers       []string
}

// OpenOrUpdate opens the pull request of spec.Head, or updates the one
// open already (title and body; labels and reviewers added): a rerun
// never makes a second one. It says whether it created it.
func (c *Client) OpenOrUpdate(ctx context.Context, spec PRSpec) (*PR, bool, error) {
	found, err := c.FindPR(ctx, spec.Head)
	if err != nil {
		return nil, false, err
	}
	var pr *PR
	created := false
	if found != nil {
		p, _, err := c.gh.PullRequests.Edit(ctx, c.Owner, c.Name, found.Number, &gh.PullRequest{Title: &spec.Title, Body: &spec.Body})
		if err != nil {
			return nil, false, refused(err, fmt.Sprintf("update pull request #%d", found.Number), PermPullRequests)
		}
		pr = prOf(p)
	} else {
		p, _, err := c.gh.PullRequests.Create(ctx, c.Owner, c.Name, &gh.NewPullRequest{Title: &spec.Title, Head: &spec.Head, Base: &spec.Base, Body: &spec.Body, Draft: &spec.Draft})
		if err != nil {
			return nil, false, refused(err, "open a pull request for "+spec.Head, PermPullRequests)
		}
		pr, created = prOf(p), true
	}
	if len(spec.Labels) > 0 {
		if _, _, err := c.gh.Issues.AddLabelsToIssue(ctx, c.Owner, c.Name, pr.Number, spec.Labels); err != nil {
			return pr, created, refused(err, fmt.Sprintf("label pull request #%d", pr.Number), PermIssues)
		}
	}
	if len(spec.Reviewers) > 0 {
		if _, _, err := c.gh.PullRequests.RequestReviewers(ctx, c.Owner, c.Name, pr.Number, gh.ReviewersRequest{Reviewers: spec.Reviewers}); err != nil {
			return pr, created, refused(err, fmt.Sprintf("ask for reviewers on pull request #%d", pr.Number), PermPullRequests)
		}
	}
	return pr, created, nil
}

// Comment writes a new comment on issue n and returns its id.
func (c *Client) Comment(ctx context.Context, n int, body string) (int64, error) {
	cm, _, err := c.gh.Issues.CreateComment(ctx, c.Owner, c.Name, n, &gh.IssueComment{Body: &body})
	if err != nil {
		return 0, refused(err, fmt.Sprintf("comment on issue #%d", n), PermIssues)
	}
	return cm.GetID(), nil
}

// EditComment replaces the text of comment id.
func (c *Client) EditComment(ctx context.Context, id int64, body string) error {
	_, _, err := c.gh.Issues.EditComment(ctx, c.Owner, c.Name, id, &gh.IssueComment{Body: &body})
	return refused(err, "update architect's comment", PermIssues)
}

// The combined state of a commit's checks (CheckState).
const (
	ChecksSuccess = "success" // every status and check run passed (or was neutral or skipped)
	ChecksPending = "pending" // some are still running
	ChecksFailure = "failure" // some failed
	ChecksNone    = "none"    // the commit has none
)

// CheckState is the combined state of sha's commit statuses and check
// runs.
func (c *Client) CheckState(ctx context.Context, sha string) (string, error) {
	st, _, err := c.gh.Repositories.GetCombinedStatus(ctx, c.Owner, c.Name, sha, nil)
	if err != nil {
		return "", refused(err, "read the statuses of "+sha, "statuses: read")
	}
	runs, _, err := c.gh.Checks.ListCheckRunsForRef(ctx, c.Owner, c.Name, sha, &gh.ListCheckRunsOptions{ListOptions: gh.ListOptions{PerPage: 100}})
	if err != nil {
		return "", refused(err, "read the check runs of "+sha, PermChecksRead)
	}
	var states []string
	if st.GetTotalCount() > 0 {
		states = append(states, st.GetState())
	}
	for _, r := range runs.CheckRuns {
		switch {
		case r.GetStatus() != "completed":
			states = append(states, ChecksPending)
		case r.GetConclusion() == "success" || r.GetConclusion() == "neutral" || r.GetConclusion() == "skipped":
			states = append(states, ChecksSuccess)
		default:
			states = append(states, ChecksFailure)
		}
	}
	return combine(states), nil
}

// combine is the state of several: a failure, else pending, else success;
// none when there are none.
func combine(states []string) string {
	if len(states) == 0 {
		return ChecksNone
	}
	out := ChecksSuccess
	for _, s := range states {
		switch s {
		case ChecksFailure, "error":
			return ChecksFailure
		case ChecksPending:
			out = ChecksPending
		}
	}
	return out
}
