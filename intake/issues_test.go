package intake

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/github"
	"github.com/architect-dev/architect/internal/fakegithub"
	"github.com/architect-dev/architect/usererr"
	"github.com/matryer/is"
)

func fakeRepo(t *testing.T) (*fakegithub.Server, *github.Client) {
	t.Helper()
	s := fakegithub.New("acme", "widgets", "tok")
	t.Cleanup(s.Close)
	c, err := github.New(github.Options{APIURL: s.URL(), Token: "tok", Repo: "acme/widgets"})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// TestIssueSpecs: every open issue with the label, on every page, becomes
// a task issue-N with its title and body; closed issues, other labels and
// pull requests do not; a body past 64 KiB is cut and said.
func TestIssueSpecs(t *testing.T) {
	is := is.New(t)
	s, c := fakeRepo(t)
	big := strings.Repeat("b", github.MaxIssueBytes+100)
	s.Update(func(st *fakegithub.State) {
		st.PageSize = 2
		add := func(n int, state, title, body string, labels ...string) {
			st.Issues[n] = &fakegithub.Issue{Number: n, State: state, Title: title, Body: body, Labels: labels, UpdatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
		}
		add(1, "open", "First", "do one; `rm -rf /` $(echo no)", "architect")
		add(2, "open", "Unlabelled", "x")
		add(3, "closed", "Closed", "x", "architect")
		add(4, "open", "Other label", "x", "bug")
		add(5, "open", "Both labels", "five", "bug", "architect")
		add(6, "open", "A pull request", "x", "architect")
		st.Issues[6].PullRequest = true
		add(7, "open", "Big", big, "architect")
		add(8, "open", "Last", "eight", "architect")
	})
	specs, notes, err := IssueSpecs(context.Background(), c, "architect")
	is.NoErr(err)
	var ids []string
	for _, sp := range specs {
		ids = append(ids, sp.ID)
	}
	is.Equal(ids, []string{"issue-1", "issue-5", "issue-7", "issue-8"})
	is.Equal(specs[0].Task, "First\n\ndo one; `rm -rf /` $(echo no)\n\n(GitHub issue #1)") // as data, as written
	is.True(strings.Contains(specs[2].Task, "[architect: the issue's body was cut here: 100 more bytes of it are not shown]"))
	is.True(len(specs[2].Task) < github.MaxIssueBytes+200)
	is.Equal(len(notes), 1)
	is.True(strings.HasPrefix(notes[0], "issue #7: its body of 65636 bytes is cut to 65536"))
	// Every page was read: the 5 open issues and pull requests with the
	// label, 2 a page.
	var lists int
	for _, call := range fakeCalls(s) {
		if strings.HasPrefix(call, "GET /repos/acme/widgets/issues?") {
			lists++
			is.True(strings.Contains(call, "labels=architect"))
			is.True(strings.Contains(call, "state=open"))
		}
	}
	is.Equal(lists, 3)
}

func fakeCalls(s *fakegithub.Server) []string {
	var out []string
	s.Update(func(st *fakegithub.State) {
		for _, c := range st.Calls {
			out = append(out, c.Method+" "+c.Path)
		}
	})
	return out
}

// TestIssueSpecsRefused: a refusal names the permission to add.
func TestIssueSpecsRefused(t *testing.T) {
	is := is.New(t)
	s, c := fakeRepo(t)
	s.Update(func(st *fakegithub.State) { st.Deny["GET /repos/acme/widgets/issues"] = 403 })
	_, _, err := IssueSpecs(context.Background(), c, "architect")
	is.True(err != nil)
	is.Equal(err.Error(), `GitHub refused to list the issues labelled "architect" (HTTP 403: Resource not accessible by integration)`)
	is.True(strings.Contains(hintOf(err), "issues: read"))
}

func TestIssueSpecsNone(t *testing.T) {
	is := is.New(t)
	_, c := fakeRepo(t)
	specs, notes, err := IssueSpecs(context.Background(), c, "architect")
	is.NoErr(err)
	is.Equal(len(specs), 0)
	is.Equal(len(notes), 0)
}

func hintOf(err error) string {
	var ue *usererr.Error
	if errors.As(err, &ue) {
		return ue.Hint
	}
	return ""
}
