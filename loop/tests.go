package loop

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/testset"
)

// Tests cannot quietly disappear: the run's tests are found when it
// starts (package testset, saved in .architect/tests.json so a resumed
// run compares with the same start), and after each agent, before the
// checks, the tests found then are compared with them. Where a check's
// output names the tests it ran, the tests a passing check ran the first
// time it named any are the witness: a later passing run of it that ran
// fewer is a removal too. Under tests: keep a removal fails the iteration;
// under warn it is recorded and told to the next agent.

// startTests settles what the run does about removed tests (from the
// task and the specification's text when --tests is not given), finds
// the run's tests at its start and saves them.
func (r *runner) startTests() {
	spec := ""
	if r.cfg.Spec != "" {
		if b, err := os.ReadFile(r.cfg.Spec); err == nil {
			spec = string(b)
		}
	}
	mode, why := r.cfg.TestsMode(spec)
	r.tests = runlog.Tests{Mode: mode, Why: why}
	if mode == config.TestsOff {
		r.saveTests()
		return
	}
	set, err := r.scanTests()
	if err != nil {
		r.warn("cannot find the tests at the start, so removed tests will not be told: " + r.cleanText(err.Error()))
		r.tests.Mode = config.TestsOff
		return
	}
	r.tests.Files = set
	r.saveTests()
	if mode == config.TestsWarn {
		r.logf("tests: %d test(s) in %d file(s) at the start; a removed one is recorded, not refused (tests: warn, %s)", set.Count(), len(set), why)
	}
}

// resumeTests reads the run's tests at its start; a run without them
// (started by an older architect) takes them now. A --tests given on
// resume changes what is done about a removal, not the start.
func (r *runner) resumeTests() {
	t, err := runlog.ReadTests(r.ws.state(runlog.TestsFile))
	if errors.Is(err, os.ErrNotExist) {
		r.logf("tests: the run kept no record of its tests at the start; the tests as they are now count as the start")
		r.startTests()
		return
	}
	if err != nil {
		r.warn(err.Error() + "; removed tests will not be told")
		r.tests = runlog.Tests{Mode: config.TestsOff}
		return
	}
	r.tests = t
	if r.cfg.Tests != "" && r.cfg.Tests != t.Mode {
		r.tests.Mode, r.tests.Why = r.cfg.Tests, "set by tests on resume"
		if t.Files == nil && r.cfg.Tests != config.TestsOff {
			r.startTests() // the start was not looked at (off): from now on
		}
	}
}

func (r *runner) saveTests() {
	if err := runlog.WriteTests(r.ws.state(runlog.TestsFile), r.tests); err != nil {
		r.warn("could not save the tests at the start: " + err.Error())
	}
}

// scanTests finds the workspace's tests, their files' and tests' names
// cleaned and redacted as all text from outside is (they are written to
// tests.json, records and prompts), the same way every time so that they
// compare.
func (r *runner) scanTests() (testset.Set, error) { return r.scanTestsIn(r.ws.dir) }

// scanTestsIn finds the tests in dir (the workspace, or a candidate's
// worktree).
func (r *runner) scanTestsIn(dir string) (testset.Set, error) {
	set, err := testset.Scan(dir, protectSkip)
	if err != nil {
		return nil, err
	}
	out := make(testset.Set, len(set))
	for file, names := range set {
		clean := make([]string, len(names))
		for i, n := range names {
			clean[i] = r.cleanText(n)
		}
		out[r.cleanText(file)] = clean
	}
	return out, nil
}

// testsOn reports whether the run looks for removed tests.
func (r *runner) testsOn() bool {
	return r.tests.Mode == config.TestsKeep || r.tests.Mode == config.TestsWarn
}

// compareTests is the tests step, after the agent and before the checks:
// the tests now against those at the start.
func (r *runner) compareTests(x *iteration) {
	if !r.testsOn() {
		return
	}
	now, err := r.scanTestsIn(x.ws.dir)
	if err != nil {
		r.warn("cannot find the tests after iteration " + fmt.Sprint(x.n) + ": " + r.cleanText(err.Error()))
		return
	}
	gone := testset.Compare(r.tests.Files, now)
	if !gone.Any() {
		return
	}
	x.rec.TestsRemoved = &runlog.TestsRemoved{
		Files: r.cleanList(gone.Files),
		Tests: r.cleanList(gone.Tests),
		Count: len(gone.Tests),
	}
}

// cleanList is names from the workspace, cleaned, redacted and bounded.
func (r *runner) cleanList(l []string) []string {
	out := make([]string, 0, min(len(l), runlog.MaxTestsListed))
	for _, s := range l[:min(len(l), runlog.MaxTestsListed)] {
		out = append(out, r.cleanText(s))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// witnesses are what tells, for each check, the tests it ran, when the
// run looks for removed tests: a reader of its output, and the report it
// names, as it was before the checks ran.
type witnesses struct {
	out     []*testset.Witness
	reports []report
}

// report is a file a check's runner writes the tests it ran to (a JUnit
// report, a jest or vitest JSON report), and how it was before the checks
// ran: a report the check did not write again is not this run's.
type report struct {
	path   string
	read   func([]byte) ([]string, bool)
	before os.FileInfo // nil: there was none
}

func (r *runner) witnesses() *witnesses {
	if !r.testsOn() {
		return nil
	}
	w := &witnesses{out: make([]*testset.Witness, len(r.cfg.Checks)), reports: make([]report, len(r.cfg.Checks))}
	for i, cmd := range r.cfg.Checks {
		w.out[i] = testset.NewWitness()
		rep := report{path: testset.JUnitPath(cmd), read: testset.JUnitRan}
		if rep.path == "" {
			rep = report{path: testset.JSONReportPath(cmd), read: testset.JSONReportRan}
		}
		if rep.path == "" {
			continue
		}
		if !filepath.IsAbs(rep.path) {
			rep.path = filepath.Join(r.ws.dir, rep.path)
		}
		rep.before, _ = os.Stat(rep.path)
		w.reports[i] = rep
	}
	return w
}

// witnessed adds check i's witness to where its output is copied.
func witnessed(out func(int) io.Writer, w *witnesses) func(int) io.Writer {
	if w == nil {
		return out
	}
	ws := w.out
	return func(i int) io.Writer {
		var k io.Writer
		if out != nil {
			k = out(i)
		}
		if k == nil {
			return ws[i]
		}
		return tee{k, ws[i]}
	}
}

// tee writes to a check's transcript file and its witness; closing it
// closes the file.
type tee struct {
	file io.Writer
	w    *testset.Witness
}

func (t tee) Write(p []byte) (int, error) {
	_, _ = t.w.Write(p)
	return t.file.Write(p)
}

func (t tee) Close() error {
	if c, ok := t.file.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// witnessTests compares the tests each passing check ran with those it
// ran the first time it named any, passing or failing (which become that
// check's witness). A failing check proves nothing either way (a build
// error runs no test): only a passing one is compared.
func (r *runner) witnessTests(x *iteration, w *witnesses) {
	if w == nil || !x.rec.ChecksRun {
		return
	}
	r.testsMu.Lock()
	defer r.testsMu.Unlock()
	ws := w.out
	changed := false
	var notRun []string
	for i, c := range x.rec.CheckResults {
		if i >= len(ws) {
			continue
		}
		ran, witness := ws[i].Ran()
		if witness && testset.OutputFiltered(r.cfg.Checks[i]) {
			ran, witness = nil, false // a tail of the output names some tests, not all
		}
		if rep := w.reports[i]; rep.path != "" {
			ran, witness = rep.ran()
		}
		for k := range ran {
			ran[k] = r.cleanText(ran[k])
		}
		slices.Sort(ran)
		cmd := r.cfg.Checks[i]
		first, ok := r.tests.Ran[cmd]
		switch {
		case !witness, !ok && len(ran) == 0, !c.Passed && ok:
			continue
		case !ok:
			if r.tests.Ran == nil {
				r.tests.Ran = map[string]runlog.TestsRan{}
			}
			r.tests.Ran[cmd] = runlog.TestsRan{Iteration: x.n, Tests: ran}
			changed = true
			continue
		}
		for _, name := range testset.Shrunk(first.Tests, ran) {
			notRun = append(notRun, c.Name+": "+name)
		}
	}
	if changed {
		r.saveTests()
	}
	if len(notRun) == 0 {
		return
	}
	t := x.rec.TestsRemoved
	if t == nil {
		t = &runlog.TestsRemoved{}
		x.rec.TestsRemoved = t
	}
	t.NotRun = r.cleanList(notRun)
	t.Count += len(notRun)
}

// maxReport bounds what is read of a test report.
const maxReport = 64 << 20

// ran reads the report for the tests the check ran. A report the check
// did not write (none, or the same file as before the checks: an earlier
// run's, or one an agent wrote) is no witness.
func (rep report) ran() ([]string, bool) {
	f, err := os.Open(rep.path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > maxReport {
		return nil, false
	}
	if b := rep.before; b != nil && b.ModTime().Equal(fi.ModTime()) && b.Size() == fi.Size() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReport))
	if err != nil {
		return nil, false
	}
	return rep.read(data)
}

// judgeTests settles whether the tests removed fail the iteration
// (tests: keep), and says so in the log.
func (r *runner) judgeTests(x *iteration) {
	t := x.rec.TestsRemoved
	if t == nil {
		return
	}
	t.Failed = r.tests.Mode == config.TestsKeep && (t.Count > 0)
	i := x.n
	if len(t.Files) > 0 {
		r.logf("iteration %d/%d: test files gone since the start: %s", i, r.cfg.MaxIterations, listPaths(t.Files))
	}
	if t.Count == 0 {
		return // renamed files whose tests are all elsewhere
	}
	what := "tests removed since the start"
	if t.Failed {
		what = "the agent removed tests that were there at the start, the iteration fails"
		r.logEvent("FAIL", "iteration %d removed tests: %s", i, listPaths(removedList(t)))
	}
	r.logf("iteration %d/%d: %s: %s", i, r.cfg.MaxIterations, what, listPaths(removedList(t)))
}

// removedList is every test a TestsRemoved names.
func removedList(t *runlog.TestsRemoved) []string { return t.List() }

// testsFailed reports whether rec failed for the tests it removed.
func testsFailed(rec record) bool {
	return rec.TestsRemoved != nil && rec.TestsRemoved.Failed
}

// testsNote tells the next agent which tests the last iteration removed,
// and that it must not.
func (r *runner) testsNote() string {
	n := len(r.records)
	if n == 0 || r.records[n-1].TestsRemoved == nil {
		return ""
	}
	rec := r.records[n-1]
	t := rec.TestsRemoved
	var b strings.Builder
	i := rec.Iteration.Iteration
	if t.Count == 0 {
		fmt.Fprintf(&b, "Test files that were there at the start of the run are gone (renamed or moved, their tests found elsewhere): %s.", listPaths(t.Files))
		return b.String()
	}
	if t.Failed {
		fmt.Fprintf(&b, "Iteration %d failed because it removed tests that were there at the start of the run: %s.", i, listPaths(removedList(t)))
	} else {
		fmt.Fprintf(&b, "Iteration %d removed tests that were there at the start of the run: %s.", i, listPaths(removedList(t)))
	}
	if len(t.Files) > 0 {
		fmt.Fprintf(&b, " Test files gone: %s.", listPaths(t.Files))
	}
	if len(t.NotRun) > 0 {
		b.WriteString(" (A test named CHECK: NAME ran in that check at first and no longer runs: skipped, excluded or deleted.)")
	}
	if t.Failed {
		b.WriteString(" Do not delete, rename away, skip or empty tests: put them back and make them pass by changing the code. " +
			"A test may move to another file under the same name.")
	}
	return b.String()
}

// testsGoneBeforeDone reports whether tests of the start are gone when the
// DONE file is found before an iteration (tests: keep): its checks alone
// cannot end the run then, and the next iteration is told.
func (r *runner) testsGoneBeforeDone() bool {
	if r.tests.Mode != config.TestsKeep {
		return false
	}
	now, err := r.scanTests()
	if err != nil {
		return false
	}
	gone := testset.Compare(r.tests.Files, now)
	if len(gone.Tests) == 0 {
		return false
	}
	r.logf("%s is present but tests that were there at the start are gone (%s): continuing", donePath(r.cfg, r.ws), listPaths(r.cleanList(gone.Tests)))
	return true
}

// testsStopNote adds to why the run stopped that its last iteration failed
// for the tests it removed.
func (r *runner) testsStopNote() string {
	n := len(r.records)
	if n == 0 || !testsFailed(r.records[n-1]) {
		return ""
	}
	return "; the last iteration removed tests that were there at the start: " + listPaths(removedList(r.records[n-1].TestsRemoved))
}
