package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// roundRun is memRun's three iterations with the last a round of three
// candidates: #1 failed its checks, #2 succeeded and was kept, #3 was
// stopped.
func roundRun(t *testing.T) *Run {
	r := memRun(t, 3, ptrTo(0.25))
	r.State.Workspace = "/w"
	r.Iterations[2].Candidates = []runlog.Candidate{
		{N: 1, Agent: "claude", Model: "sonnet", ChecksPassed: 1, ChecksTotal: 3, FailingLines: 40, DiffLines: 12, Cost: ptrTo(0.02), Duration: 31,
			Failing: []string{"go test ./...", "go vet ./..."}, Why: "fewer checks passing than #2 (1 of 3 against 3) <b>", Transcript: "transcripts/iteration-3/candidate-1",
			Tokens: &runlog.Tokens{Input: 1200, CachedInput: 800, Output: 300}},
		{N: 2, Agent: "codex", Kept: true, Success: true, CompletionSignal: "tag", ChecksPassed: 3, ChecksTotal: 3, DiffLines: 20, Cost: ptrTo(0.05), Duration: 40,
			Transcript: "transcripts/iteration-3/candidate-2"},
		{N: 3, Agent: "claude", Model: "sonnet", Stopped: true, Duration: 40, Error: ptrTo("stopped by architect"),
			Why: "stopped: #2 succeeded first", Transcript: "transcripts/iteration-3/candidate-3"},
	}
	return r
}

// candRow is the table row of candidate c of iteration n.
func candRow(t *testing.T, html string, n, c int) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<li class="cand" id="candidate-` + strconv.Itoa(n) + "-" + strconv.Itoa(c) + `">.*?</li>`).FindString(html)
	if m == "" {
		t.Fatalf("no row for candidate %d of iteration %d", c, n)
	}
	return m
}

// The page shows every candidate of a round: the kept one marked, why
// each other lost, its checks, cost, time and transcript folder; the
// iteration's line names the kept one. Iterations without candidates
// have no table.
func TestReportShowsCandidates(t *testing.T) {
	is := is.New(t)
	html := render(t, roundRun(t))
	is.Equal(strings.Count(html, `<li class="cand"`), 3)
	is.Equal(strings.Count(html, "<h3>Candidates"), 1) // iterations 1 and 2 have none
	r1, r2, r3 := candRow(t, html, 3, 1), candRow(t, html, 3, 2), candRow(t, html, 3, 3)
	is.True(strings.Contains(r1, ">failed<"))
	is.True(strings.Contains(r1, "not kept: fewer checks passing than #2 (1 of 3 against 3) &lt;b&gt;")) // why it lost, as text
	is.True(strings.Contains(r1, "failing: go test ./..., go vet ./..."))
	is.True(strings.Contains(r1, "· checks 1/3 · $0.02 · 31.0s · 12 lines changed</span>"))
	is.True(strings.Contains(r1, "tokens: 1.2k in"))
	is.True(strings.Contains(r1, "transcript: <code>.architect/transcripts/iteration-3/candidate-1</code>"))
	is.True(strings.Contains(r2, `<span class="check-pass">★ kept</span>`))
	is.True(strings.Contains(r2, "completion: tag"))
	is.True(strings.Contains(r2, "· checks 3/3 · $0.05 · 40.0s") && !strings.Contains(r2, "not kept"))
	is.True(strings.Contains(r3, ">stopped<") && strings.Contains(r3, "not kept: stopped: #2 succeeded first"))
	is.True(strings.Contains(r3, "· cost unknown ·")) // its cost was not reported
	is.True(strings.Contains(r3, "agent error: stopped by architect"))
	is.True(strings.Contains(html, "· kept #2 of 3 (codex)</span></summary>"))
	is.True(strings.Contains(html, "<dt>Candidates</dt><dd>3 at once; kept #2 of 3 (codex); cost is their sum</dd>"))
}

// The round on the page in headless Chromium: the table is in the DOM of
// its iteration, and the page on a phone is kept as a screenshot in
// bench/out/ for a person to look at.
func TestCandidatesInChromium(t *testing.T) {
	bin := chromium(t)
	is := is.New(t)
	page := filepath.Join(t.TempDir(), "report.html")
	is.NoErr(WriteFile(page, roundRun(t), time.Date(2026, 1, 15, 11, 0, 0, 0, time.UTC)))
	dom := browse(t, bin, page, "--dump-dom")
	i := strings.Index(dom, `<details class="iter" id="iteration-3" open`)
	is.True(i > 0)
	it3 := dom[i:]
	is.Equal(strings.Count(it3, `<li class="cand"`), 3) // every candidate, in its iteration, open
	is.True(strings.Contains(it3, "★ kept"))
	is.Equal(strings.Count(dom, `<li class="cand"`), 3)
	out, err := filepath.Abs(filepath.Join("..", "bench", "out"))
	is.NoErr(err)
	is.NoErr(os.MkdirAll(out, 0o755))
	shot := filepath.Join(out, "report-candidates-phone.png")
	_ = os.Remove(shot)
	browse(t, bin, page, "--window-size=390,5200", "--screenshot="+shot, "--hide-scrollbars")
	fi, err := os.Stat(shot)
	is.NoErr(err)
	is.True(fi.Size() > 10_000)
	t.Logf("screenshot: %s", shot)
}
