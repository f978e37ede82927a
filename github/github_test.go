package github

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/fakegithub"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/matryer/is"
)

func fake(t *testing.T) (*fakegithub.Server, *Client) {
	t.Helper()
	s := fakegithub.New("acme", "widgets", "tok")
	t.Cleanup(s.Close)
	c, err := New(Options{APIURL: s.URL() + "/api/v3", Token: "tok", Repo: "acme/widgets"})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func TestOpenOrUpdateMakesOnePullRequest(t *testing.T) {
	is := is.New(t)
	s, c := fake(t)
	ctx := context.Background()
	pr, created, err := c.OpenOrUpdate(ctx, PRSpec{Head: "architect/issue-1", Base: "main", Title: "one", Body: "b1", Labels: []string{"bot"}})
	is.NoErr(err)
	is.True(created)
	pr2, created, err := c.OpenOrUpdate(ctx, PRSpec{Head: "architect/issue-1", Base: "main", Title: "two", Body: "b2", Labels: []string{"bot"}})
	is.NoErr(err)
	is.True(!created)
	is.Equal(pr2.Number, pr.Number)
	var prs []*fakegithub.PR
	s.Update(func(st *fakegithub.State) { prs = st.PRs })
	is.Equal(len(prs), 1)
	is.Equal(prs[0].Title, "two")
	is.Equal(prs[0].Body, "b2")
	is.Equal(prs[0].Labels, []string{"bot"})
}

func TestPermissionErrorsNameThePermission(t *testing.T) {
	s, c := fake(t)
	ctx := context.Background()
	cases := []struct {
		deny, perm string
		call       func() error
	}{
		{"POST /repos/acme/widgets/pulls", "pull-requests: write", func() error {
			_, _, err := c.OpenOrUpdate(ctx, PRSpec{Head: "h", Base: "main", Title: "t"})
			return err
		}},
		{"POST /repos/acme/widgets/issues/1/comments", "issues: write", func() error { _, err := c.Comment(ctx, 1, "x"); return err }},
		{"GET /repos/acme/widgets/issues/1", "issues: read", func() error { _, err := c.Issue(ctx, 1); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.deny, func(t *testing.T) {
			is := is.New(t)
			s.Update(func(st *fakegithub.State) { st.Deny = map[string]int{tc.deny: http.StatusForbidden} })
			err := tc.call()
			var ue *usererr.Error
			is.True(errors.As(err, &ue))
			is.True(strings.Contains(ue.Msg, "HTTP 403"))
			is.True(strings.Contains(ue.Hint, "`"+tc.perm+"`"))
		})
	}
}

func TestNewRefusesWithoutTokenOrRepo(t *testing.T) {
	is := is.New(t)
	_, err := New(Options{Repo: "a/b"})
	var ue *usererr.Error
	is.True(errors.As(err, &ue))
	is.True(strings.Contains(ue.Hint, PermPullRequests))
	_, err = New(Options{Token: "t", Repo: "nope"})
	is.True(err != nil)
	is.Equal(TokenFrom("", " ", "gh"), "gh")
}

func TestCheckState(t *testing.T) {
	is := is.New(t)
	s, c := fake(t)
	ctx := context.Background()
	for _, tc := range []struct{ status, run, want string }{
		{"", "", ChecksNone},
		{"success", "", ChecksSuccess},
		{"", "success", ChecksSuccess},
		{"success", "in_progress", ChecksPending},
		{"success", "failure", ChecksFailure},
		{"failure", "success", ChecksFailure},
		{"pending", "success", ChecksPending},
	} {
		s.Update(func(st *fakegithub.State) {
			st.Statuses, st.CheckRuns = map[string]string{}, map[string]string{}
			if tc.status != "" {
				st.Statuses["abc"] = tc.status
			}
			if tc.run != "" {
				st.CheckRuns["abc"] = tc.run
			}
		})
		got, err := c.CheckState(ctx, "abc")
		is.NoErr(err)
		is.Equal(got, tc.want) // status, check run → state
	}
}

func TestDecide(t *testing.T) {
	open := Issue{Number: 4, Title: "t", Body: "b", State: "open"}
	rc := &Receipt{Format: 1, Success: true, Head: "h1", Issue: IssueReceipt(open)}
	changed := open
	changed.Body = "b, and more"
	pr := &PR{Number: 9, Head: "architect/issue-4", HeadSHA: "h1"}
	cases := []struct {
		name string
		f    Facts
		run  bool
		why  string
	}{
		{"closed", Facts{Issue: Issue{Number: 4, State: "closed"}}, false, "issue #4 is closed"},
		{"no PR", Facts{Issue: open}, true, "no pull request yet"},
		{"green", Facts{Issue: open, PR: pr, Checks: ChecksSuccess, Receipt: rc}, false, "has green checks"},
		{"pending", Facts{Issue: open, PR: pr, Checks: ChecksPending, Receipt: rc}, false, "still running"},
		{"failing", Facts{Issue: open, PR: pr, Checks: ChecksFailure, Receipt: rc}, true, "failing checks"},
		{"changed", Facts{Issue: changed, PR: pr, Checks: ChecksSuccess, Receipt: rc}, true, "changed since"},
		{"no receipt", Facts{Issue: open, PR: pr, Checks: ChecksSuccess}, true, "no receipt"},
		{"no CI, receipt on head", Facts{Issue: open, PR: pr, Checks: ChecksNone, Receipt: rc}, false, "no CI checks"},
		{"no CI, pushed since", Facts{Issue: open, PR: &PR{Number: 9, HeadSHA: "h2"}, Checks: ChecksNone, Receipt: rc}, true, "no checks"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			run, why := tc.f.Decide()
			is.Equal(run, tc.run)
			is.True(strings.Contains(why, tc.why)) // the line says why
		})
	}
}

func TestReceiptRoundTripsThroughTheBody(t *testing.T) {
	is := is.New(t)
	cost := 0.5
	res := &runlog.Result{Success: true, StopReason: runlog.StopSuccess, TotalIterations: 1, TotalCost: &cost, TotalCostKnown: true, KnownCost: cost,
		Iterations: []runlog.Iteration{{CheckResults: []runlog.CheckResult{{Name: "echo '-->' `x` | tee", Passed: true, Duration: 1.5}}}}}
	rc := NewReceipt(res, "v1.2.3", "b", "h", "d", time.Unix(0, 0))
	rc.Issue = IssueReceipt(Issue{Number: 2, Title: "<!-- -->", Body: "```"})
	body := Body(res, BodyInfo{Issue: 2, Receipt: rc})
	back := ReadReceipt(body)
	is.True(back != nil)
	is.Equal(back.Checks[0].Command, "echo '-->' `x` | tee")
	is.Equal(back.Issue.TextSHA256, rc.Issue.TextSHA256)
	is.Equal(back.Cost.Provenance, CostReported)
	is.Equal(*back.Cost.USD, 0.5)
	is.Equal(strings.Count(rc.Hidden(), "-->"), 1) // the comment's own end: the check's "-->" is escaped
	is.True(ReadReceipt("no receipt here") == nil)

	res.TotalCost, res.TotalCostKnown, res.KnownCost = nil, false, 0.2
	is.Equal(CostOf(res).Provenance, CostUnknown)
	is.Equal(CostText(CostOf(res)), "unknown (at least $0.2000 reported)")
}

func TestTaskIsCutAndSaysSo(t *testing.T) {
	is := is.New(t)
	big := strings.Repeat("é", MaxIssueBytes) // 2 bytes each
	task := Task(Issue{Number: 5, Title: " T ", Body: big}, "do it")
	is.True(len(task) < MaxIssueBytes+500)
	is.True(strings.Contains(task, "[architect: the issue's body was cut here: 65536 more bytes of it are not shown]"))
	is.True(strings.HasPrefix(task, "T\n\n"))
	is.True(strings.Contains(task, "Asked in a comment: do it"))
	is.True(strings.HasSuffix(task, "(GitHub issue #5)"))
	is.True(!strings.Contains(Task(Issue{Number: 5, Title: "T", Body: "short"}, ""), "cut"))
}

func TestTrigger(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, payload, label string
		ok                   bool
		ins                  string
	}{
		{"issues", `{"action":"labeled","label":{"name":"architect"},"issue":{"number":1},"sender":{"login":"a"}}`, "architect", true, ""},
		{"issues", `{"action":"labeled","label":{"name":"bug"},"issue":{"number":1},"sender":{"login":"a"}}`, "architect", false, ""},
		{"issues", `{"action":"opened","issue":{"number":1},"sender":{"login":"a"}}`, "", true, ""},
		{"issue_comment", `{"action":"created","issue":{"number":1},"comment":{"body":"/architect fix it","user":{"login":"c"}}}`, "architect", true, "fix it"},
		{"issue_comment", `{"action":"created","issue":{"number":1},"comment":{"body":"/architecture","user":{"login":"c"}}}`, "architect", false, ""},
		{"issue_comment", `{"action":"created","issue":{"number":1,"pull_request":{"url":"x"}},"comment":{"body":"/architect","user":{"login":"c"}}}`, "architect", false, ""},
		{"issue_comment", `{"action":"edited","issue":{"number":1},"comment":{"body":"/architect","user":{"login":"c"}}}`, "architect", false, ""},
	}
	for i, tc := range cases {
		is := is.New(t)
		p := filepath.Join(dir, "ev.json")
		is.NoErr(os.WriteFile(p, []byte(tc.payload), 0o644))
		ev, err := ReadEvent(tc.name, p)
		is.NoErr(err)
		ins, ok, why := ev.Trigger(tc.label)
		is.Equal(ok, tc.ok) // case i
		is.Equal(ins, tc.ins)
		is.True(ok || why != "")
		_ = i
	}
}

func TestTitle(t *testing.T) {
	is := is.New(t)
	is.Equal(Title("\n  fix the parser  \nmore"), "fix the parser")
	is.Equal(len([]rune(Title(strings.Repeat("x", 200)))), 72)
	is.Equal(Title(""), "architect: changes")
}
