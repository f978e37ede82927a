package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/loop"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// step is what the in-process agent does in one iteration.
type step struct {
	write   map[string]string // files to write
	remove  []string
	message string
	cost    float64
	takes   time.Duration // how far the clock moves while the agent runs
}

// scripted is an in-process agent that plays steps in order.
type scripted struct {
	steps []step
	clock *clock
	runs  int
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Run(_ context.Context, req agent.Request) agent.Outcome {
	st := s.steps[min(s.runs, len(s.steps)-1)]
	s.runs++
	for name, text := range st.write {
		_ = os.WriteFile(filepath.Join(req.Dir, name), []byte(text), 0o644)
	}
	for _, name := range st.remove {
		_ = os.Remove(filepath.Join(req.Dir, name))
	}
	s.clock.advance(st.takes)
	return agent.Outcome{FinalMessage: st.message, Cost: st.cost, CostKnown: true, Steps: 4 + s.runs,
		Usage: agent.Usage{Input: 12000 * int64(s.runs), CachedInput: 8000, Output: 900}, Duration: st.takes}
}

// clock moves forward a little at every reading (so that checks appear to
// take time) and as much as an agent run says.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(700 * time.Millisecond)
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// scriptedRun runs a real three-iteration loop in a new git repository:
// iteration 1 fails a check, iteration 2 times one out, iteration 3
// succeeds. It returns the workspace.
func scriptedRun(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	gitconfig := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", gitconfig)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ws := filepath.Join(t.TempDir(), "shop-api")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "value.txt"), []byte("bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, ws, "init", "-q")
	git(t, ws, "add", "-A")
	git(t, ws, "commit", "-q", "-m", "initial")

	cfg := config.Defaults()
	cfg.Dir = ws
	cfg.Task = "make value.txt good & keep notes <fast>"
	cfg.Checks = []string{
		`grep -q good value.txt || { echo "value.txt is not good yet: $(cat value.txt)"; exit 1; }`,
		"test -f NOTES.md",
		"if [ -f slow ]; then sleep 30; fi",
	}
	cfg.CheckTimeout = time.Second
	cfg.KillGrace = time.Second
	cfg.MaxIterations = 5
	c := &clock{now: time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)}
	ag := &scripted{clock: c, steps: []step{
		{write: map[string]string{"value.txt": "almost\n", "NOTES.md": "# Notes\n"}, message: "Changed value.txt; the <b>check</b> may still fail.", cost: 0.0123, takes: 42 * time.Second},
		{write: map[string]string{"slow": "x", "extra.go": "package extra\n"}, message: "Tried a slower approach.", cost: 0.0311, takes: 75 * time.Second},
		{write: map[string]string{"value.txt": "good\n"}, remove: []string{"slow"}, message: "All done: value.txt is good.\n<promise>COMPLETE</promise>", cost: 0.0207, takes: 28 * time.Second},
	}}
	res, err := loop.Run(context.Background(), cfg, loop.Deps{Agent: ag, Now: c.Now,
		Sleep: func(ctx context.Context, d time.Duration) error { c.advance(d); return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || res.TotalIterations != 3 {
		t.Fatalf("the scripted run ended with %s after %d iterations, want success after 3", res.StopReason, res.TotalIterations)
	}
	return ws
}

func TestReportOfARealRun(t *testing.T) {
	is := is.New(t)
	ws := scriptedRun(t)
	r, err := Load(ws)
	is.NoErr(err)
	is.Equal(len(r.Iterations), 3)
	is.Equal(r.Agent, "scripted")
	is.Equal(len(r.Checks), 3)
	is.True(strings.Contains(r.Iterations[0].FinalMessage, "<b>check</b>"))
	is.True(strings.Contains(r.Iterations[1].DiffStat, "extra.go"))
	is.True(strings.Contains(r.Prompts[2], "## Errors from Previous Iteration"))
	is.True(r.Iterations[1].CheckResults[2].TimedOut)

	var b strings.Builder
	is.NoErr(Write(&b, r, time.Now()))
	html := b.String()
	for _, want := range []string{
		`id="summary"`, `id="iteration-1"`, `id="iteration-3" open`,
		"all_checks_passed", "$0.06", // stop reason, total cost
		`class="timeout"`, `class="fail"`, `class="pass"`,
		"&lt;b&gt;check&lt;/b&gt;",                          // escaped final message
		"make value.txt good &amp; keep notes &lt;fast&gt;", // escaped prompt
		"value.txt is not good yet: almost",                 // failing check output
	} {
		is.True(strings.Contains(html, want)) // the page has want
	}
	is.True(!strings.Contains(html, "<b>check</b>"))
	for _, bad := range []string{"http://", "https://", "<script", "<link"} {
		is.True(!strings.Contains(html, bad)) // self-contained
	}
}

func TestReportOfARunWithoutIterations(t *testing.T) {
	is := is.New(t)
	ws := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(ws, runlog.StateDir), 0o755))
	is.NoErr(os.WriteFile(filepath.Join(ws, runlog.StateDir, runlog.StateFile), []byte(`{"status":"failed","stop_reason":"agent_error","stop_detail":"claude is not installed","max_iterations":5,"workspace":"`+ws+`"}`), 0o644))
	r, err := Load(ws)
	is.NoErr(err)
	var b strings.Builder
	is.NoErr(Write(&b, r, time.Now()))
	is.True(strings.Contains(b.String(), "No iteration has finished yet."))
	is.True(strings.Contains(b.String(), "claude is not installed"))
}

func TestDur(t *testing.T) {
	is := is.New(t)
	for in, want := range map[float64]string{0.25: "250ms", 12.34: "12.3s", 185: "3m05s", 3720: "1h02m"} {
		is.Equal(dur(in), want)
	}
}

// The task's Markdown is rendered, and sanitised: HTML in it is shown as
// text, dangerous links are dropped.
func TestMarkdownIsSanitised(t *testing.T) {
	is := is.New(t)
	html := string(markdown("# Fix **auth**\n\n- a `code`\n\nkeep <fast> mode\n\n<script>alert(1)</script>\n\n<iframe src=x></iframe>\n\n[x](javascript:alert(2)) [y](https://example.com) <img src=x onerror=alert(3)>"))
	for _, want := range []string{"<h1>Fix <strong>auth</strong></h1>", "<code>code</code>", "keep &lt;fast&gt; mode", "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;iframe", `<a href="https://example.com">y</a>`, "&lt;img src=x onerror=alert(3)&gt;"} {
		if !strings.Contains(html, want) {
			t.Fatalf("%q not in %s", want, html)
		}
	}
	for _, bad := range []string{"<script", "<iframe", "<img", `href="javascript:`} {
		is.True(!strings.Contains(html, bad))
	}
}

func TestTitle(t *testing.T) {
	is := is.New(t)
	is.Equal(Title("make the **auth** tests pass\nmore", "", "x"), "make the auth tests pass")
	is.Equal(Title("", "intro\n# The `shop` API\n## more", "x"), "The shop API")
	is.Equal(Title("", "no heading", "work from spec.md"), "work from spec.md")
}

func TestStatAndDiffFiles(t *testing.T) {
	is := is.New(t)
	add, del := statLines(" a.go | 3 ++-\n b.go | 1 -\n 2 files changed, 2 insertions(+), 2 deletions(-)\n")
	is.Equal([]int{add, del}, []int{2, 2})
	add, del = statLines(" 1 file changed, 1 insertion(+)")
	is.Equal([]int{add, del}, []int{1, 0})
	files, note := diffFiles("# architect: a note\n\n" + "diff --git a/a.go b/a.go\nindex 1..2 100644\n--- a/a.go\n+++ b/a.go\n@@ -1 +1,2 @@\n-old\n+new\n+more\n ctx\ndiff --git a/b b/b\nnew file mode 100644\n")
	is.Equal(note, "# architect: a note")
	is.Equal(len(files), 2)
	is.Equal(files[0].Name, "a.go")
	is.Equal([]int{files[0].Added, files[0].Deleted}, []int{2, 1})
	is.Equal(files[0].Lines[4].Class, "hunk")
	is.Equal(files[0].Lines[8].Class, "")
	is.Equal(files[1].Lines[1].Class, "meta")
}

// The overview lists each run with its outcome and figures, linked to its
// page by a path relative to the overview.
func TestOverview(t *testing.T) {
	is := is.New(t)
	var entries []Entry
	top := t.TempDir()
	for _, n := range []int{1, 30} {
		ws := synthRun(t, n)
		r, err := Load(ws)
		is.NoErr(err)
		page := filepath.Join(ws, ".architect", File)
		is.NoErr(WriteFile(page, r, time.Now()))
		entries = append(entries, Entry{Name: fmt.Sprintf("task-%d", n), Run: r, Page: page})
	}
	path := filepath.Join(top, "overview.html")
	is.NoErr(WriteOverview(path, "architect batch b.yaml", entries, time.Now()))
	data, err := os.ReadFile(path)
	is.NoErr(err)
	html := string(data)
	for _, e := range entries {
		rel, _ := filepath.Rel(top, e.Page)
		is.True(strings.Contains(html, `<a href="`+filepath.ToSlash(rel)+`">`+e.Name+`</a>`))
	}
	is.True(strings.Contains(html, "<dt>Runs</dt><dd>2</dd>"))
	is.True(strings.Contains(html, "<dt>Iterations</dt><dd>31</dd>"))
	is.True(strings.Contains(html, "Make the auth tests pass"))
	is.True(!strings.Contains(html, "<script"))
}

// BenchmarkReport300 loads and writes the report of a 300-iteration run.
func BenchmarkReport300(b *testing.B) {
	ws := synthRun(b, 300)
	path := filepath.Join(ws, ".architect", File)
	b.ResetTimer()
	for b.Loop() {
		r, err := Load(ws)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteFile(path, r, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// The last look is in the report: the run's, among its facts, and each
// iteration's; an iteration whose look failed is no success.
func TestReportShowsTheLastLook(t *testing.T) {
	is := is.New(t)
	fc := &runlog.FinalCheck{Mode: "clean", Status: runlog.FinalFailed, Reason: "in a clean checkout of the final tree, sh check.sh (exit status 1) failed",
		CheckoutDuration: 0.5, ChecksDuration: 2}
	r := &Run{State: &runlog.State{Status: runlog.StatusFailed, StopReason: runlog.StopMaxIterations, MaxIterations: 1},
		Iterations: []runlog.Iteration{{Iteration: 1, AllChecksPassed: true, CompletionTagFound: true, FinalCheck: fc,
			CheckResults: []runlog.CheckResult{{Name: "sh check.sh", Passed: true}}}}}
	var b strings.Builder
	is.NoErr(Write(&b, r, time.Now()))
	html := b.String()
	is.Equal(strings.Count(html, "Last look"), 2) // the run's and the iteration's
	is.True(strings.Contains(html, "failed: in a clean checkout of the final tree, sh check.sh (exit status 1) failed (checkout 0.5s, checks 2.0s)"))
	is.True(strings.Contains(html, "last look failed"))
	tone, verdict := iterVerdict(r.Iterations[0])
	is.Equal(tone+" "+verdict, "bad last look failed")
}
