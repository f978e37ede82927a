package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/sandbox/mountns"
)

// The sandbox's cost per process (an iteration starts one agent and one
// process per check): BenchmarkStart runs /bin/true unconfined and
// through the helper (one more exec of this binary, served from
// helper/serve's init as architect serves it, the rules built and
// applied). Its difference is the cost; the target is under 5 ms per
// iteration (bench's sandbox scenario measures architect itself).
// BenchmarkNew is the set-up, once per run.
func BenchmarkStart(b *testing.B) {
	ws := b.TempDir()
	home := b.TempDir()
	sb, err := New(Settings{Mode: ModeWorkspace, Workspace: ws, Home: home, Getenv: env(home)})
	if err != nil {
		b.Skip(err)
	}
	defer sb.Close()
	for _, c := range []struct {
		name string
		wrap Wrapper
	}{{"unconfined", nil}, {"workspace", sb.AgentWrap()}, {"net-none", netNone(b, ws, home)}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res := proc.Run(context.Background(), "/bin/true", nil, proc.Options{Dir: ws, Wrap: c.wrap})
				if res.ExitCode != 0 || res.StartErr != nil {
					b.Fatal(res)
				}
			}
		})
	}
}

func netNone(b *testing.B, ws, home string) Wrapper {
	sb, err := New(Settings{Mode: ModeStrict, Net: "none", Workspace: ws, Home: home, Getenv: env(home)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sb.Close)
	return sb.AgentWrap()
}

func BenchmarkNew(b *testing.B) {
	ws := b.TempDir()
	home := b.TempDir()
	_ = os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	for b.Loop() {
		sb, err := New(Settings{Mode: ModeWorkspace, Workspace: ws, Home: home, Agents: []string{"claude"}, Getenv: env(home)})
		if err != nil {
			b.Fatal(err)
		}
		sb.Close()
	}
}

// BenchmarkWrap is what architect does per confined process before it
// starts the helper: the program looked up on PATH, the policy written.
func BenchmarkWrap(b *testing.B) {
	ws := b.TempDir()
	home := b.TempDir()
	sb, err := New(Settings{Mode: ModeWorkspace, Workspace: ws, Home: home, Agents: []string{"claude"}, Getenv: env(home)})
	if err != nil {
		b.Skip(err)
	}
	defer sb.Close()
	wrap := sb.CheckWrap()
	for b.Loop() {
		if _, _, _, err := wrap("sh", []string{"-c", "true"}, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartReadOnly is the added cost of making protected files
// read-only to the agent: /bin/true through the helper as BenchmarkStart's
// workspace, then started in a user and mount namespace of its own with 0,
// 10 and 200 files mounted read-only (the namespaces' clone, the mounts).
// BenchmarkProbeMounts is the probe, once per run with protected files.
func BenchmarkStartReadOnly(b *testing.B) {
	ws := b.TempDir()
	home := b.TempDir()
	sb, err := New(Settings{Mode: ModeWorkspace, Protect: true, Workspace: ws, Home: home, Getenv: env(home)})
	if err != nil {
		b.Skip(err)
	}
	defer sb.Close()
	if ok, why := sb.ReadOnlyMounts(); !ok {
		b.Skip(why)
	}
	var files []string
	for i := range 200 {
		p := filepath.Join(ws, "tests", strconv.Itoa(i)+"_test.go")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, p)
	}
	for _, c := range []struct {
		name string
		st   AgentStart
	}{
		{"workspace", AgentStart{Wrap: sb.AgentWrap()}},
		{"ns-0-files", AgentStart{Wrap: sb.AgentWrap(), Attr: mountns.SetAttr}},
		{"ns-10-files", sb.AgentStart(files[:10])},
		{"ns-200-files", sb.AgentStart(files)},
	} {
		b.Run(c.name, func(b *testing.B) {
			before := childCPU()
			for b.Loop() {
				res := proc.Run(context.Background(), "/bin/true", nil, proc.Options{Dir: ws, Wrap: c.st.Wrap, Attr: c.st.Attr})
				if res.ExitCode != 0 || res.StartErr != nil {
					b.Fatal(res)
				}
			}
			// The children's CPU time (the helper's and /bin/true's), which
			// waiting for a core on a loaded machine does not inflate.
			b.ReportMetric(float64(childCPU()-before)/float64(b.N), "child-cpu-ns/op")
		})
	}
}

func BenchmarkProbeMounts(b *testing.B) {
	for b.Loop() {
		if ok, why := probeMountsNow(); !ok {
			b.Skip(why)
		}
	}
}

// childCPU is the user and system time of this process's waited-for
// children so far, in nanoseconds.
func childCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
