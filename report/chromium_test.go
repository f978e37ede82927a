package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (CI=true): install it with `apt-get install -y chromium`")
	}
	t.Skip("chromium is not installed: skipping the browser test (apt-get install -y chromium)")
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

// TestReportInChromium renders the report of a real run in headless
// Chromium: the DOM must hold the summary, every iteration and the grid,
// and screenshots (light, dark, phone) go to bench/out/ for a person to
// look at.
func TestReportInChromium(t *testing.T) {
	is := is.New(t)
	bin := chromium(t)
	ws := scriptedRun(t)
	r, err := Load(ws)
	is.NoErr(err)
	page := filepath.Join(ws, ".architect", "report.html")
	is.NoErr(WriteFile(page, r, time.Date(2026, 1, 15, 11, 0, 0, 0, time.UTC)))

	dom := browse(t, bin, page, "--dump-dom")
	for _, want := range []string{`id="summary"`, `id="timeline"`, `id="checks"`, "Total cost", "all_checks_passed"} {
		is.True(strings.Contains(dom, want)) // the summary is rendered
	}
	for i := 1; i <= 3; i++ {
		is.True(regexp.MustCompile(`<details class="iter" id="iteration-` + string(rune('0'+i)) + `"`).MatchString(dom)) // every iteration
		is.True(strings.Contains(dom, `<span class="v" data-iteration="`+string(rune('0'+i))+`"`))                       // and its bar
	}
	is.Equal(strings.Count(dom, `<th class="check" scope="row">`), 3)                                   // a row per check
	is.Equal(len(regexp.MustCompile(`<td class="(pass|fail|timeout|none)"`).FindAllString(dom, -1)), 9) // 3 checks × 3 iterations
	is.Equal(strings.Count(dom, `<td class="timeout"`), 1)
	is.True(strings.Contains(dom, "&lt;b&gt;check&lt;/b&gt;")) // the agent's text stays text

	out, err := filepath.Abs(filepath.Join("..", "bench", "out"))
	is.NoErr(err)
	is.NoErr(os.MkdirAll(out, 0o755))
	for _, shot := range []struct {
		name string
		args []string
	}{
		{"report.png", []string{"--window-size=1200,2000"}},
		{"report-dark.png", []string{"--window-size=1200,2000", "--force-dark-mode", "--blink-settings=preferredColorScheme=0"}},
		{"report-phone.png", []string{"--window-size=390,2400"}},
	} {
		path := filepath.Join(out, shot.name)
		_ = os.Remove(path)
		browse(t, bin, page, append(shot.args, "--screenshot="+path, "--hide-scrollbars")...)
		fi, err := os.Stat(path)
		is.NoErr(err)
		is.True(fi.Size() > 10_000) // a real picture
		t.Logf("screenshot: %s", path)
	}
}
