package sandbox

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/architect-dev/architect/proc"
)

// maxDenials bounds what one process's denials hold: a tool that fails on
// every file of a tree says so thousands of times.
const maxDenials = 20

// The shapes a permission error takes in the output of the programs
// agents and checks run; each has the path (or host and port) in group 1.
var (
	pathDenied = []*regexp.Regexp{
		// Node: EACCES: permission denied, open '/x'
		regexp.MustCompile(`\b(?:EACCES|EPERM)\b[^'"]*?,\s*\w+\s+'([^']+)'`),
		// Python: PermissionError: [Errno 13] Permission denied: '/x'
		regexp.MustCompile(`(?i)(?:permission denied|operation not permitted):\s*'([^']+)'`),
		// coreutils: touch: cannot touch '/x': Permission denied
		regexp.MustCompile(`(?i)cannot [a-z ]+?\s[‘'"]([^’'"]+)[’'"]:\s*(?:permission denied|operation not permitted)`),
		// Go and the shells: open /x: permission denied, sh: 1: cannot create /x: Permission denied
		regexp.MustCompile(`(?i)(?:^|[\s'"‘(])([^\s:'"‘’,;()]+)['"’]?:\s*(?:permission denied|operation not permitted)`),
	}
	connDenied = []*regexp.Regexp{
		// Go: dial tcp 127.0.0.1:8080: connect: permission denied
		regexp.MustCompile(`(?i)dial tcp\s+(\S+:\d+):\s*connect:\s*(?:permission denied|operation not permitted)`),
		// Node: connect EACCES 127.0.0.1:8080
		regexp.MustCompile(`connect (?:EACCES|EPERM) (\S+:\d+)`),
		// curl: Failed to connect to host port 8080 after 0 ms: Permission denied
		regexp.MustCompile(`(?i)failed to connect to (\S+ port \d+)[^\n]*(?:permission denied|operation not permitted)`),
	}
)

// Denials finds, in what a confined process printed, the permission
// errors on paths outside what it may write (or, strict, read), and on
// connections, each named once as "sandbox denied write to PATH",
// "sandbox denied read of PATH" or "sandbox denied connect to HOST:PORT".
// dir is the process's working folder, against which relative paths are
// read. A permission error on a path the sandbox allows is the system's,
// not the sandbox's, and is left out. Nil when the sandbox is off.
func (sb *Sandbox) Denials(dir, output string) []string {
	if sb == nil || sb.mode == ModeOff {
		return nil
	}
	w := sb.Watch(dir)
	_, _ = w.Write([]byte(output))
	return w.Denials()
}

// Watch is a writer that reads a confined process's output line by line
// as it comes, and keeps its denials (Denials), in bounded memory: a line
// longer than 4 KiB is read by its first 4 KiB.
func (sb *Sandbox) Watch(dir string) *Watcher {
	w := &Watcher{sb: sb, dir: dir}
	w.lines = proc.NewLineWriter(maxLine, func(line []byte) { w.scan(string(line)) })
	return w
}

// Watcher is what Watch returns: the output, split into lines of at most
// maxLine bytes (memory stays bounded), each read for a denial.
type Watcher struct {
	sb      *Sandbox
	dir     string
	lines   *proc.LineWriter
	mu      sync.Mutex // guards denials
	denials []string
}

const maxLine = 4096

// Write implements io.Writer; it never fails.
func (w *Watcher) Write(p []byte) (int, error) {
	if w == nil || w.sb == nil || w.sb.mode == ModeOff {
		return len(p), nil
	}
	return w.lines.Write(p)
}

// Denials returns what was found, the last line included.
func (w *Watcher) Denials() []string {
	if w == nil {
		return nil
	}
	w.lines.Flush()
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.denials)
}

func (w *Watcher) add(d string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.denials) < maxDenials && !slices.Contains(w.denials, d) {
		w.denials = append(w.denials, d)
	}
}

// scan reads one line.
func (w *Watcher) scan(line string) {
	if roMarked(line) {
		for _, p := range w.sb.roDenials(w.dir, line) {
			w.add("sandbox denied write to " + p)
		}
	}
	low := strings.ToLower(line)
	if !strings.Contains(low, "denied") && !strings.Contains(low, "not permitted") &&
		!strings.Contains(line, "EACCES") && !strings.Contains(line, "EPERM") {
		return
	}
	for _, re := range connDenied {
		if m := re.FindStringSubmatch(line); m != nil {
			w.add("sandbox denied connect to " + strings.Replace(m[1], " port ", ":", 1))
			return
		}
	}
	for _, re := range pathDenied {
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			if d := w.sb.classify(w.dir, m[1]); d != "" {
				w.add(d)
			}
		}
	}
}

// classify names a denial on path, or "" when the sandbox allows what
// was refused there (the error is the system's).
func (sb *Sandbox) classify(dir, path string) string {
	path = strings.TrimRight(path, ".")
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) && !strings.HasPrefix(path, "~") {
		path = filepath.Join(dir, path)
	}
	path = abs(path, sb.home)
	if sb.allows(sb.agent.Write, path) || sb.allows(sb.check.Write, path) {
		return ""
	}
	if sb.mode == ModeStrict && !sb.allows(sb.readable, path) {
		return "sandbox denied read of " + path
	}
	return "sandbox denied write to " + path
}

// allows says whether path is beneath one of paths (or a device).
func (sb *Sandbox) allows(paths []string, path string) bool {
	for _, p := range append(slices.Clone(paths), devices...) {
		if within(path, p) {
			return true
		}
	}
	return false
}
