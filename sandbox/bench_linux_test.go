package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/architect-dev/architect/proc"
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
