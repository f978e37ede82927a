package testset

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// Witness reads a check's output as it is printed and collects the tests
// the output says ran: passed or failed, not skipped. It knows the lines
// of go test -json ("Action":"pass" with a Test), go test -v
// (--- PASS: TestX), pytest -v (path::test PASSED, FAILED path::test) and
// cargo test (test name ... ok). Memory is bounded: a line is looked at up
// to maxLine bytes, and at most maxRan names are kept.
//
// Only an output that names the tests that ran, the passing ones too, is
// a witness: go test without -v and pytest without -v name the failures
// alone, and a test missing from them may well have passed.
type Witness struct {
	mu      sync.Mutex
	line    []byte
	long    bool // the line being read is past maxLine: ignored to its end
	ran     map[string]bool
	full    bool // maxRan was reached: the set is incomplete
	verbose bool // the output names passing tests (or says it runs each)
}

const (
	maxLine = 64 << 10
	maxRan  = 100_000
)

// NewWitness returns an empty witness.
func NewWitness() *Witness { return &Witness{ran: map[string]bool{}} }

// Write reads output; it never fails.
func (w *Witness) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !w.long {
			if len(w.line)+len(chunk) > maxLine {
				w.long, w.line = true, w.line[:0]
			} else {
				w.line = append(w.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !w.long {
			w.take(w.line)
		}
		w.line, w.long = w.line[:0], false
		p = p[i+1:]
	}
	return n, nil
}

// Ran is the sorted names of the tests seen running; witness is false
// when the output does not tell every test that ran (it names failures
// only, or more tests than the witness keeps).
func (w *Witness) Ran() (names []string, witness bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.line) > 0 && !w.long {
		w.take(w.line)
		w.line = w.line[:0]
	}
	for n := range w.ran {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, w.verbose && !w.full
}

func (w *Witness) add(name string) {
	if name == "" || w.ran[name] {
		return
	}
	if len(w.ran) >= maxRan {
		w.full = true
		return
	}
	w.ran[name] = true
}

var (
	goJSONAction = []byte(`"Action":`)
	goRun        = []byte("=== RUN ")
	goPass       = []byte("--- PASS: ")
	goFail       = []byte("--- FAIL: ")
	cargoSep     = []byte(" ... ")
)

// take reads one line of output.
func (w *Witness) take(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	t := bytes.TrimLeft(line, " \t")
	switch {
	case len(t) > 0 && t[0] == '{' && bytes.Contains(t, goJSONAction):
		var ev struct{ Action, Package, Test string }
		if json.Unmarshal(t, &ev) == nil && ev.Test != "" && (ev.Action == "pass" || ev.Action == "fail") {
			w.add(ev.Package + "." + ev.Test)
		}
		w.verbose = true // go test -json reports every test
	case bytes.HasPrefix(t, goRun):
		w.verbose = true
	case bytes.HasPrefix(t, goPass) || bytes.HasPrefix(t, goFail):
		w.add(firstField(t[len(goPass):]))
		w.verbose = w.verbose || bytes.HasPrefix(t, goPass)
	case bytes.HasPrefix(t, []byte("test ")) && bytes.Contains(t, cargoSep):
		name, status, _ := bytes.Cut(t[len("test "):], cargoSep)
		if s := string(bytes.TrimSpace(status)); s == "ok" || s == "FAILED" {
			w.add(string(bytes.TrimSpace(name)))
			w.verbose = true // cargo test names every test
		}
	case bytes.Contains(t, []byte("::")):
		w.pytest(t)
	}
}

// pytest reads pytest -v's "path::test STATUS [ n%]" and the summary's
// "STATUS path::test - reason".
func (w *Witness) pytest(t []byte) {
	fields := bytes.Fields(t)
	if len(fields) < 2 {
		return
	}
	ran := func(s []byte) bool {
		switch string(s) {
		case "PASSED", "FAILED", "ERROR", "XPASS", "XFAIL":
			return true
		}
		return false
	}
	switch {
	case bytes.Contains(fields[0], []byte("::")) && ran(fields[1]):
		w.add(string(fields[0]))
		w.verbose = true // pytest -v's line per test
	case ran(fields[0]) && bytes.Contains(fields[1], []byte("::")):
		w.add(string(fields[1]))
	}
}

// firstField is b up to its first space.
func firstField(b []byte) string {
	if i := bytes.IndexAny(b, " \t"); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// Shrunk is what of before is not in now: the tests that ran before and
// not now. Both are sorted. A test named FILE::NAME (pytest -v, a JUnit
// report's CLASS::NAME, jest's) that is now under another file with the
// same NAME moved, as the test scan counts it (Compare): it is not gone.
// Each new name covers one that went, so of two tests of one name, one
// moved and one deleted, one is still gone.
func Shrunk(before, now []string) []string {
	var gone []string
	for _, n := range before {
		if _, ok := slices.BinarySearch(now, n); !ok {
			gone = append(gone, n)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	arrived := map[string]int{}
	for _, n := range now {
		if _, ok := slices.BinarySearch(before, n); !ok {
			if k := afterFile(n); k != "" {
				arrived[k]++
			}
		}
	}
	var out []string
	for _, n := range gone {
		if k := afterFile(n); k != "" && arrived[k] > 0 {
			arrived[k]--
			continue
		}
		out = append(out, n)
	}
	return out
}

// afterFile is the name of a test FILE::NAME without its file; "" for a
// name without one.
func afterFile(name string) string {
	_, k, _ := strings.Cut(name, "::")
	return k
}
