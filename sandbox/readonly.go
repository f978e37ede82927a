package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/sandbox/mountns"
)

// The protected files (--protect, and the files that define the checks
// under --judge protect) are made read-only to a confined agent by the
// kernel, on Linux, where user namespaces let an unprivileged process
// mount: the agent's helper starts in a user and mount namespace of its
// own and bind-mounts each file read-only onto itself before Landlock
// binds it (Landlock then forbids any change to the mounts). A write to a
// protected file fails with EROFS, its removal or a rename over it with
// EBUSY, whichever way the agent tries. The snapshot-and-restore stays:
// it guards the files created after the agent started, the ones beyond
// maxReadOnly, and every file where namespaces are unavailable.

// Bounds on the files one agent start mounts: each mount is two system
// calls at start, and the list travels in the helper's policy, one
// argument, which Linux bounds at 128 KiB.
const (
	maxReadOnly      = 256
	maxReadOnlyBytes = 64 << 10
)

// AgentStart is how a confined agent starts: its helper (Wrap, nil when
// nothing is confined) and what the helper must be started with (Attr,
// for proc.Options.Attr; nil when it needs nothing). Note, when set, is
// to be said once: the protected files were too many for all of them to
// be made read-only.
type AgentStart struct {
	Wrap Wrapper
	Attr func(*syscall.SysProcAttr)
	Note string
}

// AgentStart is AgentWrap with the files of readOnly (absolute, or
// relative to the workspace) made read-only to the agent, when this
// system can (ReadOnlyMounts): only regular files the agent could
// otherwise write, the first maxReadOnly of them.
func (sb *Sandbox) AgentStart(readOnly []string) AgentStart {
	wrap := sb.AgentWrap()
	if wrap == nil || !sb.nsOK || len(readOnly) == 0 {
		return AgentStart{Wrap: wrap}
	}
	var ro []string
	size, over := 0, 0
	for _, p := range readOnly {
		if !filepath.IsAbs(p) {
			p = filepath.Join(sb.agent.Write[0], p)
		}
		p = filepath.Clean(p)
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || !sb.allows(sb.agent.Write, p) || slices.Contains(ro, p) {
			continue
		}
		if len(ro) >= maxReadOnly || size+len(p) > maxReadOnlyBytes {
			over++
			continue
		}
		ro, size = append(ro, p), size+len(p)+3
	}
	if len(ro) == 0 {
		return AgentStart{Wrap: wrap}
	}
	sb.mu.Lock()
	for _, p := range ro {
		sb.readOnly[p] = true
	}
	note := ""
	if over > 0 && !sb.overSaid {
		sb.overSaid = true
		note = fmt.Sprintf("sandbox: %d protected files are more than the %d made read-only to the agent: the other %d are guarded by restore only", len(ro)+over, len(ro), over)
	}
	sb.mu.Unlock()
	p := sb.agent
	p.ReadOnly = ro
	return AgentStart{Wrap: p.wrap, Attr: mountns.SetAttr, Note: note}
}

// ReadOnlyMounts says whether the protected files are made read-only to
// the agent (AgentStart), and if not, why.
func (sb *Sandbox) ReadOnlyMounts() (bool, string) {
	if sb == nil {
		return false, "nothing is confined"
	}
	return sb.nsOK, sb.nsWhy
}

// probeMounts answers, once per process, whether a helper started in
// namespaces of its own can make a file read-only: it starts the helper
// so, on a file of its own, as an agent's would be. Unprivileged user
// namespaces can be off (user.max_user_namespaces=0, Debian's
// kernel.unprivileged_userns_clone=0: the start fails), or granted
// without the right to mount (Ubuntu's AppArmor restriction: the mount
// fails); why says which.
var probeMounts = sync.OnceValues(probeMountsNow)

func probeMountsNow() (bool, string) {
	if runtime.GOOS != "linux" {
		return false, "read-only mounts need Linux"
	}
	exe, err := self()
	if err != nil {
		return false, err.Error()
	}
	dir, err := os.MkdirTemp("", "architect-probe-")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "probe")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		return false, err.Error()
	}
	args, err := helperArgs(Policy{ReadOnly: []string{file}, Probe: true}, "/", nil, "probe")
	if err != nil {
		return false, err.Error()
	}
	out := proc.NewTail(1024)
	res := proc.Run(context.Background(), exe, args, proc.Options{
		Stdout: out, Stderr: out, Timeout: 30 * time.Second, Attr: mountns.SetAttr, Arg0: os.Args[0],
	})
	switch {
	case res.StartErr != nil:
		msg := res.StartErr.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return false, "user namespaces are not available to this user (" + msg + ")"
	case res.ExitCode != 0:
		msg := strings.TrimSpace(out.Text())
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return false, "a new user namespace cannot mount here (" + msg + ")"
	}
	return true, ""
}

// readOnlyLine is what the sandbox's line says of the protected files.
func (sb *Sandbox) readOnlyLine() string {
	if sb.nsOK {
		return "protected files read-only to the agent"
	}
	return "protected files guarded by restore only: " + sb.nsWhy
}

// roMarked says whether a line of output reports a write refused on a
// read-only mount (EROFS) or a mount point's removal or replacement
// refused (EBUSY), in the words the usual tools use.
func roMarked(line string) bool {
	low := strings.ToLower(line)
	return strings.Contains(low, "read-only file system") || strings.Contains(low, "resource busy") ||
		strings.Contains(line, "EROFS") || strings.Contains(line, "EBUSY") ||
		strings.Contains(low, "errno 30") || strings.Contains(low, "errno 16")
}

// roDenials names the protected files a line marked by roMarked refers
// to: every word of the line that is one, relative to dir or absolute.
func (sb *Sandbox) roDenials(dir, line string) []string {
	words := strings.FieldsFunc(line, func(r rune) bool {
		return strings.ContainsRune(" \t'\"‘’`:,;()[]", r)
	})
	var out []string
	sb.mu.Lock()
	defer sb.mu.Unlock()
	for _, w := range words {
		if !filepath.IsAbs(w) {
			w = filepath.Join(dir, w)
		}
		w = filepath.Clean(w)
		if sb.readOnly[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
