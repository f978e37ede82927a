package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
)

// memRun is a finished run of n iterations held in memory, each costing
// cost (nil: unknown), with one check that passes from the last one on.
func memRun(t *testing.T, n int, cost *float64) *Run {
	t.Helper()
	st := &runlog.State{Workspace: t.TempDir(), Status: runlog.StatusSucceeded, StopReason: runlog.StopSuccess, MaxIterations: max(n, 5), Mode: "build"}
	r := &Run{State: st, Config: config.Config{Checks: []string{"go test ./..."}}, Checks: []string{"go test ./..."}, Prompts: map[int]string{}, Commits: map[int]string{}}
	for i := 1; i <= n; i++ {
		r.Iterations = append(r.Iterations, runlog.Iteration{Iteration: i, Cost: cost, Duration: 10, AgentDuration: 8, ChecksDuration: 2,
			ChecksRun: true, AllChecksPassed: i == n, CheckResults: []runlog.CheckResult{{Name: "go test ./...", Passed: i == n}},
			DiffStat: " a.go | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)"})
	}
	return r
}

func render(t *testing.T, r *Run) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, r, time.Now()); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// card is the HTML of the card with the given id.
func card(t *testing.T, html, id string) string {
	t.Helper()
	s := section(html, id)
	if s == "" {
		t.Fatalf("the page has no section %q", id)
	}
	return s
}

var rectRE = regexp.MustCompile(`<rect class="[^"]*" x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)"`)

// The charts fit the run: with 2 iterations as with 300, the marks span
// the width of the drawing (the last one ends near its right edge, not
// in the first fifth of it), each iteration's mark is labelled where it
// is, and none goes past the edge.
func TestChartsFitTheRun(t *testing.T) {
	for _, n := range []int{1, 2, 3, 9, 10, 30, 300} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			c := 0.01
			html := render(t, memRun(t, n, &c))
			for _, id := range []string{"timeline", "durations", "passing"} {
				marks := rectRE.FindAllStringSubmatch(card(t, html, id), -1)
				if len(marks) < n {
					t.Fatalf("%s: %d marks for %d iterations", id, len(marks), n)
				}
				right := 0.0
				for _, m := range marks {
					x, _ := strconv.ParseFloat(m[1], 64)
					w, _ := strconv.ParseFloat(m[2], 64)
					if x < 0 || x+w > chartW+0.01 {
						t.Errorf("%s: a mark at %v+%v is outside the drawing", id, x, w)
					}
					right = max(right, x+w)
				}
				if n > 1 && right < chartW*0.75 {
					t.Errorf("%s: the marks of %d iterations end at %.0f of %d: the chart does not fit them", id, n, right, chartW)
				}
			}
			// the last iteration is named on the axis
			if !strings.Contains(card(t, html, "timeline"), ">#"+strconv.Itoa(n)+"<") {
				t.Errorf("the timeline's axis does not name iteration #%d", n)
			}
		})
	}
}

// A run whose cost the agent never reported draws no $0.00 axis: the cost
// card says the cost is unknown.
func TestUnknownCostIsDrawnAsUnknown(t *testing.T) {
	is := is.New(t)
	html := render(t, memRun(t, 2, nil))
	cost := card(t, html, "cost")
	is.True(!strings.Contains(cost, "$0.00"))          // no axis up to $0.00
	is.True(!strings.Contains(cost, "<polyline"))      // no line at zero
	is.True(strings.Contains(cost, "cost is unknown")) // said in words
	// a known cost still draws its chart
	c := 0.25
	known := card(t, render(t, memRun(t, 2, &c)), "cost")
	is.True(strings.Contains(known, "<polyline"))
	is.True(strings.Contains(known, "$0.50"))
}

// A note from the person running the loop is shown as a note, not as part
// of the task the report quotes from the last prompt.
func TestNoteIsNotPartOfTheTask(t *testing.T) {
	is := is.New(t)
	ws := t.TempDir()
	dir := filepath.Join(ws, runlog.StateDir)
	is.NoErr(os.MkdirAll(filepath.Join(dir, "prompts"), 0o700))
	is.NoErr(os.WriteFile(filepath.Join(dir, runlog.StateFile), []byte(`{"status":"succeeded","stop_reason":"all_checks_passed","max_iterations":5,"mode":"build","workspace":"`+ws+`","config":{"task":"fix the parser"}}`), 0o600))
	is.NoErr(os.WriteFile(filepath.Join(dir, runlog.RecordsFile), []byte(`{"iteration":1,"cost":null,"check_results":[],"notes":["use the blue widget"]}`+"\n"), 0o600))
	prompt := "## Task\n\nfix the parser\n\n## Notes from the Person Running This Loop\n\n- use the blue widget\n\n## Iteration Instructions\n\n[RALPH LOOP - ITERATION 1/5]\n"
	is.NoErr(os.WriteFile(filepath.Join(dir, "prompts", "iteration-1.md"), []byte(prompt), 0o600))
	r, err := Load(ws)
	is.NoErr(err)
	is.Equal(r.Spec, "fix the parser")
	html := render(t, r)
	task := card(t, html, "task")
	is.True(!strings.Contains(task, "Notes from the Person")) // not a heading of the task
	notes := card(t, html, "notes")
	is.True(strings.Contains(notes, "use the blue widget"))
	is.True(strings.Contains(notes, "iteration 1"))
}

// The mode the report shows is the one the run's state (and `architect
// status --json`) says.
func TestModeAgreesWithTheState(t *testing.T) {
	is := is.New(t)
	for _, mode := range []string{"build", "plan"} {
		r := memRun(t, 1, nil)
		r.State.Mode = mode
		html := card(t, render(t, r), "summary")
		is.True(strings.Contains(html, "<dt>Mode</dt><dd>"+mode+"</dd>"))
	}
}

// The report shows the whole run's change, what `architect merge` would
// bring in: its diff stat and its diff, from the records alone.
func TestReportShowsTheWholeRunsDiff(t *testing.T) {
	is := is.New(t)
	ws := scriptedRun(t)
	r, err := Load(ws)
	is.NoErr(err)
	is.True(strings.Contains(r.RunDiff, "+good"))
	is.True(strings.Contains(r.RunDiff, "extra.go"))
	is.True(!strings.Contains(r.RunDiff, "slow")) // made and removed again: not in the run's change
	html := render(t, r)
	changes := card(t, html, "changes")
	is.True(strings.Contains(changes, "3 files changed"))
	is.True(strings.Contains(changes, "NOTES.md"))
	is.True(strings.Contains(changes, `class="add">&#43;good`))
	// the records alone: the workspace's git is not needed
	is.NoErr(os.RemoveAll(filepath.Join(ws, ".git")))
	r, err = Load(ws)
	is.NoErr(err)
	is.True(strings.Contains(card(t, render(t, r), "changes"), `class="add">&#43;good`))
}
