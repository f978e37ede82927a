// Package fakegithub is a small fake of the GitHub REST API for tests:
// the calls architect github makes, served on 127.0.0.1 (httptest), with
// state (issues, comments, pull requests, statuses, check runs,
// collaborators' permissions) that a test sets and reads, and every call
// recorded. Issues are listed by label a page at a time, as GitHub lists
// them. Requests without the expected token get 401.
package fakegithub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Call is one request the fake received.
type Call struct {
	Method string `json:"method"`
	Path   string `json:"path"` // with the query
	Body   string `json:"body,omitempty"`
	Status int    `json:"status"`
}

// Issue is an issue of the fake repository.
type Issue struct {
	Number    int       `json:"number"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	State     string    `json:"state"`
	UpdatedAt time.Time `json:"updated_at"`
	Labels    []string  `json:"labels,omitempty"`
	// PullRequest: the number is a pull request's, which the issues
	// API lists among the issues.
	PullRequest bool `json:"pull_request,omitempty"`
}

// Comment is a comment on an issue.
type Comment struct {
	ID     int64  `json:"id"`
	Issue  int    `json:"issue"`
	Body   string `json:"body"`
	Edits  int    `json:"edits"`
	Author string `json:"author"`
}

// PR is a pull request.
type PR struct {
	Number    int      `json:"number"`
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	Head      string   `json:"head"`
	HeadSHA   string   `json:"head_sha"`
	Base      string   `json:"base"`
	Draft     bool     `json:"draft"`
	State     string   `json:"state"`
	Labels    []string `json:"labels"`
	Reviewers []string `json:"reviewers"`
	Updates   int      `json:"updates"`
}

// State is everything the fake holds.
type State struct {
	Issues      map[int]*Issue    `json:"issues"`
	Comments    []*Comment        `json:"comments"`
	PRs         []*PR             `json:"prs"`
	Statuses    map[string]string `json:"statuses"`   // sha → combined state (success, pending, failure)
	CheckRuns   map[string]string `json:"check_runs"` // sha → success, failure or in_progress
	Permissions map[string]string `json:"permissions"`
	// Deny maps "METHOD PATH-PREFIX" to a status the fake answers with
	// (403 for a permission the token lacks).
	Deny map[string]int `json:"deny"`
	// PageSize, when above 0, caps the issues of one page of a list
	// below the per_page asked for (GitHub's cap is 100), so that a
	// test sees several pages without a hundred issues.
	PageSize int    `json:"page_size,omitempty"`
	Calls    []Call `json:"calls"`
	// Before, when set (through Update), is called with every authorized
	// request's method and path (without the query), under the lock,
	// before the request is answered: a test changes the state there at a
	// given call (closes an issue at its Nth read, say) from inside a run.
	Before func(st *State, method, path string) `json:"-"`
}

// Server is the fake.
type Server struct {
	Owner, Repo, Token string
	// HeadSHA, when set, tells the SHA of a branch's head (the test's
	// bare remote); otherwise a PR's head SHA is made up.
	HeadSHA func(branch string) string

	mu     sync.Mutex
	st     State
	srv    *httptest.Server
	nextID int64
}

// New starts a fake for OWNER/REPO that accepts token.
func New(owner, repo, token string) *Server {
	s := &Server{Owner: owner, Repo: repo, Token: token, nextID: 1000}
	s.st = State{Issues: map[int]*Issue{}, Statuses: map[string]string{}, CheckRuns: map[string]string{}, Permissions: map[string]string{}, Deny: map[string]int{}, Calls: []Call{}, Comments: []*Comment{}, PRs: []*PR{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetHeadSHA sets HeadSHA under the lock the handlers hold, so that a
// server already serving sees it (and the race detector sees the order).
func (s *Server) SetHeadSHA(f func(branch string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.HeadSHA = f
}

// URL is the API's base URL.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Update changes the state under the lock.
func (s *Server) Update(f func(*State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.st)
}

// Snapshot is the state as JSON.
func (s *Server) Snapshot() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, _ := json.MarshalIndent(&s.st, "", "  ")
	return data
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := &responder{w: w}
	s.handle(rec, req, body)
	s.st.Calls = append(s.st.Calls, Call{Method: req.Method, Path: req.URL.RequestURI(), Body: string(body), Status: rec.status})
}

type responder struct {
	w      http.ResponseWriter
	status int
}

func (r *responder) json(status int, v any) {
	r.status = status
	r.w.Header().Set("Content-Type", "application/json")
	r.w.WriteHeader(status)
	_ = json.NewEncoder(r.w).Encode(v)
}

func (r *responder) fail(status int, msg string) {
	r.json(status, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

func (s *Server) handle(r *responder, req *http.Request, body []byte) {
	if req.Header.Get("Authorization") != "Bearer "+s.Token {
		r.fail(401, "Bad credentials")
		return
	}
	prefix := "/repos/" + s.Owner + "/" + s.Repo + "/"
	path := strings.TrimPrefix(req.URL.Path, "/api/v3")
	if s.st.Before != nil {
		s.st.Before(&s.st, req.Method, path)
	}
	for k, status := range s.st.Deny {
		if m, p, _ := strings.Cut(k, " "); m == req.Method && strings.HasPrefix(path, p) {
			r.fail(status, "Resource not accessible by integration")
			return
		}
	}
	if !strings.HasPrefix(path, prefix) {
		r.fail(404, "Not Found")
		return
	}
	parts := strings.Split(strings.TrimPrefix(path, prefix), "/")
	var in map[string]any
	_ = json.Unmarshal(body, &in)
	str := func(k string) string { v, _ := in[k].(string); return v }
	switch {
	case len(parts) == 3 && parts[0] == "collaborators" && parts[2] == "permission" && req.Method == "GET":
		p, ok := s.st.Permissions[parts[1]]
		if !ok {
			r.fail(404, "Not Found")
			return
		}
		r.json(200, map[string]any{"permission": p, "role_name": p, "user": map[string]any{"login": parts[1]}})
	case len(parts) == 1 && parts[0] == "issues" && req.Method == "GET":
		s.listIssues(r, req)
	case len(parts) == 2 && parts[0] == "issues" && req.Method == "GET":
		is := s.issue(parts[1])
		if is == nil {
			r.fail(404, "Not Found")
			return
		}
		r.json(200, issueJSON(is))
	case len(parts) == 2 && parts[0] == "issues" && req.Method == "PATCH":
		is := s.issue(parts[1])
		if is == nil {
			r.fail(404, "Not Found")
			return
		}
		if v := str("state"); v != "" {
			is.State = v
		}
		is.UpdatedAt = time.Now().UTC()
		r.json(200, issueJSON(is))
	case len(parts) == 3 && parts[0] == "issues" && parts[2] == "comments" && req.Method == "POST":
		n, _ := strconv.Atoi(parts[1])
		s.nextID++
		c := &Comment{ID: s.nextID, Issue: n, Body: str("body"), Author: "github-actions[bot]"}
		s.st.Comments = append(s.st.Comments, c)
		if is := s.st.Issues[n]; is != nil {
			is.UpdatedAt = time.Now().UTC() // as GitHub does: a comment moves updated_at
		}
		r.json(201, map[string]any{"id": c.ID, "body": c.Body})
	case len(parts) == 3 && parts[0] == "issues" && parts[1] == "comments" && req.Method == "PATCH":
		id, _ := strconv.ParseInt(parts[2], 10, 64)
		for _, c := range s.st.Comments {
			if c.ID == id {
				c.Body = str("body")
				c.Edits++
				r.json(200, map[string]any{"id": c.ID, "body": c.Body})
				return
			}
		}
		r.fail(404, "Not Found")
	case len(parts) == 3 && parts[0] == "issues" && parts[2] == "labels" && req.Method == "POST":
		pr := s.pr(parts[1])
		if pr == nil {
			r.fail(404, "Not Found")
			return
		}
		var labels []string
		_ = json.Unmarshal(body, &labels)
		pr.Labels = appendNew(pr.Labels, labels...)
		r.json(200, []any{})
	case len(parts) == 1 && parts[0] == "pulls" && req.Method == "GET":
		head := req.URL.Query().Get("head")
		state := req.URL.Query().Get("state")
		out := []any{}
		for _, pr := range s.st.PRs {
			if (head == "" || head == s.Owner+":"+pr.Head) && (state == "" || state == "all" || state == pr.State) {
				out = append(out, s.prJSON(pr))
			}
		}
		r.json(200, out)
	case len(parts) == 1 && parts[0] == "pulls" && req.Method == "POST":
		for _, pr := range s.st.PRs {
			if pr.Head == str("head") && pr.State == "open" {
				r.json(422, map[string]any{"message": "Validation Failed", "errors": []any{map[string]string{"message": "A pull request already exists for " + s.Owner + ":" + pr.Head + "."}}})
				return
			}
		}
		draft, _ := in["draft"].(bool)
		pr := &PR{Number: s.nextNumber(), Title: str("title"), Body: str("body"), Head: str("head"), Base: str("base"), Draft: draft, State: "open"}
		s.st.PRs = append(s.st.PRs, pr)
		r.json(201, s.prJSON(pr))
	case len(parts) == 2 && parts[0] == "pulls" && req.Method == "PATCH":
		pr := s.pr(parts[1])
		if pr == nil {
			r.fail(404, "Not Found")
			return
		}
		if _, ok := in["title"]; ok {
			pr.Title = str("title")
		}
		if _, ok := in["body"]; ok {
			pr.Body = str("body")
		}
		pr.Updates++
		r.json(200, s.prJSON(pr))
	case len(parts) == 3 && parts[0] == "pulls" && parts[2] == "requested_reviewers" && req.Method == "POST":
		pr := s.pr(parts[1])
		if pr == nil {
			r.fail(404, "Not Found")
			return
		}
		var rr struct {
			Reviewers []string `json:"reviewers"`
		}
		_ = json.Unmarshal(body, &rr)
		pr.Reviewers = appendNew(pr.Reviewers, rr.Reviewers...)
		r.json(201, s.prJSON(pr))
	case len(parts) == 3 && parts[0] == "commits" && parts[2] == "status" && req.Method == "GET":
		st, ok := s.st.Statuses[parts[1]]
		n := 1
		if !ok {
			st, n = "pending", 0 // what GitHub says of a commit with no status
		}
		r.json(200, map[string]any{"state": st, "total_count": n, "sha": parts[1]})
	case len(parts) == 3 && parts[0] == "commits" && parts[2] == "check-runs" && req.Method == "GET":
		runs := []any{}
		if c, ok := s.st.CheckRuns[parts[1]]; ok {
			run := map[string]any{"id": 1, "name": "ci", "status": "completed", "conclusion": c}
			if c == "in_progress" {
				run = map[string]any{"id": 1, "name": "ci", "status": "in_progress"}
			}
			runs = append(runs, run)
		}
		r.json(200, map[string]any{"total_count": len(runs), "check_runs": runs})
	default:
		r.fail(404, fmt.Sprintf("Not Found (the fake does not serve %s %s)", req.Method, path))
	}
}

func (s *Server) issue(num string) *Issue {
	n, _ := strconv.Atoi(num)
	return s.st.Issues[n]
}

func (s *Server) pr(num string) *PR {
	n, _ := strconv.Atoi(num)
	for _, pr := range s.st.PRs {
		if pr.Number == n {
			return pr
		}
	}
	return nil
}

// nextNumber numbers a pull request after every issue and pull request.
func (s *Server) nextNumber() int {
	n := 0
	for k := range s.st.Issues {
		n = max(n, k)
	}
	for _, pr := range s.st.PRs {
		n = max(n, pr.Number)
	}
	return n + 1
}

func issueJSON(is *Issue) map[string]any {
	labels := []any{}
	for _, l := range is.Labels {
		labels = append(labels, map[string]any{"name": l})
	}
	out := map[string]any{"number": is.Number, "title": is.Title, "body": is.Body, "state": is.State, "updated_at": is.UpdatedAt.Format(time.RFC3339), "labels": labels}
	if is.PullRequest {
		out["pull_request"] = map[string]any{"url": "https://api.github.example/pulls/" + strconv.Itoa(is.Number)}
	}
	return out
}

// listIssues answers GET /repos/O/R/issues as GitHub does: the issues
// (pull requests among them) in the state asked for (default open) that
// carry every label asked for, by number, a page at a time (page,
// per_page: default 30, at most 100, at most PageSize), with a Link header
// naming the next page while there is one.
func (s *Server) listIssues(r *responder, req *http.Request) {
	q := req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	var nums []int
	for n, is := range s.st.Issues {
		if (state == "all" || is.State == state) && hasAll(is.Labels, want) {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	if q.Get("direction") == "desc" {
		slices.Reverse(nums)
	}
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	if s.st.PageSize > 0 {
		per = min(per, s.st.PageSize)
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	from := min((page-1)*per, len(nums))
	to := min(from+per, len(nums))
	out := []any{}
	for _, n := range nums[from:to] {
		out = append(out, issueJSON(s.st.Issues[n]))
	}
	if to < len(nums) {
		next := *req.URL
		nq := next.Query()
		nq.Set("page", strconv.Itoa(page+1))
		next.RawQuery = nq.Encode()
		r.w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, req.Host, next.RequestURI()))
	}
	r.json(200, out)
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

func (s *Server) prJSON(pr *PR) map[string]any {
	sha := pr.HeadSHA
	if s.HeadSHA != nil {
		if v := s.HeadSHA(pr.Head); v != "" {
			sha = v
		}
	}
	if sha == "" {
		sha = fmt.Sprintf("%040d", pr.Number)
	}
	pr.HeadSHA = sha
	return map[string]any{"number": pr.Number, "title": pr.Title, "body": pr.Body, "draft": pr.Draft, "state": pr.State,
		"html_url": "https://github.example/" + s.Owner + "/" + s.Repo + "/pull/" + strconv.Itoa(pr.Number),
		"head":     map[string]any{"ref": pr.Head, "sha": sha}, "base": map[string]any{"ref": pr.Base}}
}

func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, l := range list {
			found = found || l == a
		}
		if !found {
			list = append(list, a)
		}
	}
	return list
}
