package report

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/architect-dev/architect/internal/testutil"
	"github.com/matryer/is"
)

// chromium finds a headless-capable Chromium, or skips the test (fails it
// under CI=true, where .ci/run installs one).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testutil.Missing(t, "chromium", "$PATH", "apt-get install -y chromium")
	return ""
}

// browse runs headless Chromium on page with extra arguments and returns
// its stdout.
func browse(t *testing.T, bin, page string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// TestReportInChromium renders the report of a real three-iteration run
// and of runs of 1, 30 and 300 iterations in headless Chromium: the DOM
// must hold the summary, the task, every iteration and one mark per
// iteration in the timeline and each chart, and screenshots (light, dark,
// phone) go to bench/out/ for a person to look at.
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	out, err := filepath.Abs(filepath.Join("..", "bench", "out"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	for _, n := range []int{0, 1, 30, 300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			is := is.New(t)
			var ws string
			if n == 0 {
				ws, n = scriptedRun(t), 3
			} else {
				ws = synthRun(t, n)
			}
			r, err := Load(ws)
			is.NoErr(err)
			page := filepath.Join(ws, ".architect", "report.html")
			is.NoErr(WriteFile(page, r, time.Date(2026, 1, 15, 11, 0, 0, 0, time.UTC)))
			entries = append(entries, Entry{Name: fmt.Sprintf("task-%d", n), Run: r, Page: page})

			dom := browse(t, bin, page, "--dump-dom")
			for _, want := range []string{`id="summary"`, `id="timeline"`, `id="cost"`, `id="durations"`, `id="passing"`, `id="diffsize"`, `id="checks"`, "Total cost", "all_checks_passed"} {
				is.True(strings.Contains(dom, want)) // the summary and the charts are rendered
			}
			is.Equal(len(regexp.MustCompile(`<details class="iter" id="iteration-\d+"`).FindAllString(dom, -1)), n) // every iteration
			for _, chart := range []string{"timeline", "durations", "passing", "diffsize", "cost"} {
				sec := section(dom, chart)
				is.Equal(len(distinct(regexp.MustCompile(`href="#iteration-(\d+)"`).FindAllStringSubmatch(sec, -1))), n) // a mark per iteration
			}
			is.Equal(strings.Count(dom, `<div class="checkrow">`), 3) // a row per check
			is.True(!strings.Contains(dom, "<b>check</b>"))           // the agent's text stays text
			is.True(!strings.Contains(dom, "<script"))                // and the task's Markdown cannot add a script
			is.True(!strings.Contains(dom, `href="javascript:`))

			for _, shot := range []struct {
				name string
				args []string
			}{
				{"report-%d.png", []string{"--window-size=1200,2400"}},
				{"report-%d-dark.png", []string{"--window-size=1200,2400", "--force-dark-mode", "--blink-settings=preferredColorScheme=0"}},
				{"report-%d-phone.png", []string{"--window-size=390,2400"}},
			} {
				path := filepath.Join(out, fmt.Sprintf(shot.name, n))
				_ = os.Remove(path)
				browse(t, bin, page, append(shot.args, "--screenshot="+path, "--hide-scrollbars")...)
				fi, err := os.Stat(path)
				is.NoErr(err)
				is.True(fi.Size() > 10_000) // a real picture
				t.Logf("screenshot: %s", path)
			}
		})
	}

	// The overview of those runs links to each page.
	is := is.New(t)
	over := filepath.Join(t.TempDir(), "overview.html")
	is.NoErr(WriteOverview(over, "architect batch ralph-batch.yaml", entries, time.Date(2026, 1, 15, 11, 0, 0, 0, time.UTC)))
	dom := browse(t, bin, over, "--dump-dom")
	is.Equal(strings.Count(dom, `<td class="task"><a href="`), len(entries))
	for _, shot := range []struct{ name, size string }{{"overview.png", "1200,900"}, {"overview-phone.png", "390,900"}} {
		path := filepath.Join(out, shot.name)
		browse(t, bin, over, "--window-size="+shot.size, "--screenshot="+path, "--hide-scrollbars")
		t.Logf("screenshot: %s", path)
	}
}

// section is the part of the DOM from the element with id to the next
// section.
func section(dom, id string) string {
	i := strings.Index(dom, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := dom[i:]
	if j := strings.Index(rest[1:], "</section>"); j >= 0 {
		return rest[:j+1]
	}
	return rest
}

func distinct(ms [][]string) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		out[m[1]] = true
	}
	return out
}
