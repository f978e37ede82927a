package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/architect-dev/architect/github"
	"github.com/architect-dev/architect/internal/fakegithub"
	"github.com/rogpeppe/go-internal/testscript"
)

// ghfakeKey holds the script's fake GitHub API (see cmdGHFake).
type ghfakeKey struct{}

// ghfakeHolder is where a script keeps its fake.
type ghfakeHolder struct{ s *fakegithub.Server }

// cmdGHFake drives a fake of the GitHub REST API on 127.0.0.1
// (internal/fakegithub), in this test process, for architect github:
//
//	ghfake start OWNER/REPO TOKEN [REMOTE]  start it; set GITHUB_API_URL, GITHUB_TOKEN, GITHUB_REPOSITORY
//	                                        (REMOTE: a bare repository whose branches give the PRs' head SHAs)
//	ghfake issue N STATE TITLEFILE BODYFILE [LABEL...]  an issue, its text read from files
//	ghfake ispr N                           issue N is a pull request (the issues list has it)
//	ghfake pagesize N                       list at most N issues a page
//	ghfake perm USER PERMISSION             a collaborator's permission
//	ghfake close N                          close issue N
//	ghfake checks BRANCH STATE              the check run on BRANCH's head in REMOTE (success, failure, in_progress)
//	ghfake deny 'METHOD PATH' STATUS        answer such calls with STATUS (0: answer them again)
//	ghfake dump FILE                        write the state and every call to FILE as JSON
//	ghfake prbody N FILE                    write pull request N's body to FILE
//	ghfake comment K FILE                   write the K-th comment (from 0) to FILE
//	ghfake prreceipt N FILE                 write the receipt pull request N's body carries to FILE,
//	                                        failing unless its head is the PR's branch head in REMOTE
func cmdGHFake(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: ghfake start|issue|perm|close|checks|deny|dump ...")
	}
	h := ts.Value(ghfakeKey{}).(*ghfakeHolder)
	if args[0] != "start" && h.s == nil {
		ts.Fatalf("ghfake start first")
	}
	need := func(n int) {
		if len(args) < n {
			ts.Fatalf("ghfake %s: too few arguments", args[0])
		}
	}
	switch args[0] {
	case "start":
		need(3)
		owner, repo, _ := strings.Cut(args[1], "/")
		h.s = fakegithub.New(owner, repo, args[2])
		ts.Defer(h.s.Close)
		if len(args) > 3 {
			remote := ts.MkAbs(args[3])
			h.s.SetHeadSHA(func(branch string) string { return revParse(remote, branch) })
		}
		ts.Setenv("GITHUB_API_URL", h.s.URL())
		ts.Setenv("GITHUB_TOKEN", args[2])
		ts.Setenv("GITHUB_REPOSITORY", args[1])
	case "issue":
		need(5)
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		title, body := ts.ReadFile(args[3]), ts.ReadFile(args[4])
		h.s.Update(func(st *fakegithub.State) {
			st.Issues[n] = &fakegithub.Issue{Number: n, State: args[2], Title: strings.TrimSuffix(title, "\n"), Body: body, UpdatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Labels: args[5:]}
		})
	case "ispr":
		need(2)
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		h.s.Update(func(st *fakegithub.State) { st.Issues[n].PullRequest = true })
	case "pagesize":
		need(2)
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		h.s.Update(func(st *fakegithub.State) { st.PageSize = n })
	case "perm":
		need(3)
		h.s.Update(func(st *fakegithub.State) { st.Permissions[args[1]] = args[2] })
	case "close":
		need(2)
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		h.s.Update(func(st *fakegithub.State) { st.Issues[n].State, st.Issues[n].UpdatedAt = "closed", time.Now().UTC() })
	case "checks":
		need(3)
		sha := ""
		if h.s.HeadSHA != nil {
			sha = h.s.HeadSHA(args[1])
		}
		if sha == "" {
			ts.Fatalf("ghfake checks: no head for %s", args[1])
		}
		h.s.Update(func(st *fakegithub.State) { st.CheckRuns[sha] = args[2] })
	case "deny":
		need(3)
		code, err := strconv.Atoi(args[2])
		ts.Check(err)
		h.s.Update(func(st *fakegithub.State) {
			if code == 0 {
				delete(st.Deny, args[1])
				return
			}
			st.Deny[args[1]] = code
		})
	case "dump":
		need(2)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), h.s.Snapshot(), 0o644))
	case "prbody", "prreceipt":
		need(3)
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		var pr *fakegithub.PR
		h.s.Update(func(st *fakegithub.State) {
			for _, p := range st.PRs {
				if p.Number == n {
					c := *p
					pr = &c
				}
			}
		})
		if pr == nil {
			ts.Fatalf("no pull request #%d", n)
		}
		if args[0] == "prbody" {
			ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(pr.Body), 0o644))
			return
		}
		rc := github.ReadReceipt(pr.Body)
		if rc == nil {
			ts.Fatalf("pull request #%d carries no receipt", n)
		}
		if h.s.HeadSHA == nil || rc.Head != h.s.HeadSHA(pr.Head) {
			ts.Fatalf("the receipt's head %s is not %s's head on the remote", rc.Head, pr.Head)
		}
		data, _ := json.MarshalIndent(rc, "", "  ")
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), data, 0o644))
	case "comment":
		need(3)
		k, err := strconv.Atoi(args[1])
		ts.Check(err)
		body := ""
		h.s.Update(func(st *fakegithub.State) {
			if k < len(st.Comments) {
				body = st.Comments[k].Body
			}
		})
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(body), 0o644))
	default:
		ts.Fatalf("ghfake: unknown verb %q", args[0])
	}
}

// revParse is branch's head in the repository at dir, "" when it has none.
func revParse(dir, branch string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
