//go:build linux

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/protect"
	"github.com/architect-dev/architect/redact"
)

// The hot functions: what every byte of output, or every iteration, goes
// through. `go test -bench . ./bench`.

var chunk = bytes.Repeat([]byte("architect bench: a line of output from a chatty process......\n"), 512) // 32 KiB

func BenchmarkTailWrite(b *testing.B) {
	t := proc.NewTail(4096)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		t.Write(chunk)
	}
}

func BenchmarkLineSampler(b *testing.B) {
	s := proc.NewLineSampler(100*time.Millisecond, 512, func([]byte) {})
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		s.Write(chunk)
	}
}

func BenchmarkLineWriter(b *testing.B) {
	w := proc.NewLineWriter(64<<10, func([]byte) {})
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		w.Write(chunk)
	}
}

func BenchmarkCleanPlain(b *testing.B) {
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		proc.Clean(chunk)
	}
}

func BenchmarkCleanEscapes(b *testing.B) {
	dirty := bytes.ReplaceAll(chunk, []byte("chatty"), []byte("\x1b[31mchatty\x1b[0m\r"))
	b.SetBytes(int64(len(dirty)))
	for b.Loop() {
		proc.Clean(dirty)
	}
}

func BenchmarkRedact(b *testing.B) {
	r, err := redact.New([]string{"GITHUB_TOKEN=ghp_0123456789abcdef", "DB_PASSWORD=hunter22hunter", "API_KEY=sk-live-abcdef"}, []string{`AKIA[0-9A-Z]{16}`})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat(string(chunk), 2) // a prompt-sized text
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.String(text)
	}
}

func BenchmarkProtectMatch(b *testing.B) {
	for b.Loop() {
		protect.Match("**/testdata/**/*_test.go", "a/b/c/testdata/d/e/f_test.go")
		protect.Match("tests/**", "src/pkg/file.go")
	}
}

func BenchmarkPromptBuild(b *testing.B) {
	out := strings.Repeat("--- FAIL: TestX (0.00s)\n    x_test.go:12: got 1, want 2\n", 40)
	in := prompt.Input{Task: "make the tests pass", Iteration: 3, MaxIterations: 25, Checks: []string{"go test ./...", "go vet ./..."},
		Diff: strings.Repeat("+added line\n-removed line\n", 200), Failed: []prompt.CheckFailure{{Command: "go test ./...", Status: "exit status 1", Output: out, PrevOutput: &out}},
		Progress: strings.Repeat("## Iteration 1 — FAIL\n- Steps: 3\n", 20)}
	for b.Loop() {
		prompt.Build(in)
	}
}

// BenchmarkSpawn is what a process run costs: exec alone (a new group,
// waited for), then through proc (a run ID, output pipes, the end-of-run
// look for leftovers), first without containment (the children list),
// then contained (a run cgroup where this process may make one: a slot,
// clone3, one read of cgroup.events). Contain is once per process: it
// comes last.
func BenchmarkSpawn(b *testing.B) {
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			c := exec.Command("true")
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	spawn := func(b *testing.B) {
		var out bytes.Buffer
		for b.Loop() {
			if r := proc.Run(b.Context(), "true", nil, proc.Options{Stdout: &out}); r.ExitCode != 0 {
				b.Fatal(r)
			}
		}
	}
	b.Run("proc", spawn)
	b.Run("proc-contained", func(b *testing.B) {
		defer proc.Contain(proc.ContainOptions{})()
		spawn(b)
	})
}
