package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/sandbox/helper"
)

// homes is where each agent CLI keeps its sessions, settings, logs and
// caches under the home folder: writable to it in every mode, since a CLI
// that cannot write its session refuses to run. A variable that moves a
// folder (CLAUDE_CONFIG_DIR, CODEX_HOME) is followed.
var homes = map[string]struct {
	dirs, files []string
	vars        []string // variables naming a folder of the agent's
}{
	"claude": {
		dirs:  []string{".claude", ".cache/claude", ".cache/claude-cli-nodejs", ".local/state/claude", ".local/share/claude"},
		files: []string{".claude.json", ".claude.json.backup"},
		vars:  []string{"CLAUDE_CONFIG_DIR"},
	},
	"codex":    {dirs: []string{".codex"}, vars: []string{"CODEX_HOME"}},
	"gemini":   {dirs: []string{".gemini", ".cache/gemini-cli"}},
	"opencode": {dirs: []string{".config/opencode", ".local/share/opencode", ".local/state/opencode", ".cache/opencode"}},
	"aider":    {dirs: []string{".aider", ".cache/aider"}},
	"amp":      {dirs: []string{".config/amp", ".local/share/amp", ".cache/amp"}},
	"cursor":   {dirs: []string{".cursor", ".config/cursor"}},
}

// agentHomes lists agent's folders (absolute) for home.
func agentHomes(agent, home string, getenv func(string) string) []string {
	h, ok := homes[agent]
	if !ok {
		return nil
	}
	var out []string
	for _, d := range h.dirs {
		out = append(out, filepath.Join(home, d))
	}
	for _, f := range h.files {
		out = append(out, filepath.Join(home, f))
	}
	for _, v := range h.vars {
		if p := getenv(v); p != "" {
			out = append(out, abs(p, home))
		}
	}
	return out
}

// cacheDirs are the package managers' caches every tool may fill: Go's
// build and module caches, npm's, pip's and cargo's, where their
// variables or their defaults put them.
func cacheDirs(home string, getenv func(string) string) []string {
	cache := getenv("XDG_CACHE_HOME")
	if cache == "" {
		cache = filepath.Join(home, ".cache")
	}
	gopath := getenv("GOPATH")
	if gopath == "" {
		gopath = filepath.Join(home, "go")
	}
	pick := func(v, def string) string {
		if p := getenv(v); p != "" {
			return abs(p, home)
		}
		return def
	}
	return []string{
		pick("GOCACHE", filepath.Join(cache, "go-build")),
		pick("GOMODCACHE", filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "pkg", "mod")),
		pick("npm_config_cache", filepath.Join(home, ".npm")),
		pick("PIP_CACHE_DIR", filepath.Join(cache, "pip")),
		pick("CARGO_HOME", filepath.Join(home, ".cargo")),
	}
}

// systemReads is what strict mode lets every process read and execute:
// the system's folders (programs, libraries, configuration, devices,
// /proc), the folders on PATH, and Go's and Node's installs.
func systemReads(home string, getenv func(string) string) []string {
	out := []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
		"/nix", "/snap", "/run", "/proc", "/sys", "/dev", "/Library", "/System", "/Applications", "/private/etc", "/private/var/db"}
	for _, d := range filepath.SplitList(getenv("PATH")) {
		if filepath.IsAbs(d) {
			out = append(out, d)
			// An install's bin folder: the install is its parent
			// (node_modules/.bin, ~/.local/bin, GOROOT/bin), unless
			// that is / or the home folder (/bin, ~/bin).
			if up := filepath.Dir(d); filepath.Base(d) == "bin" || filepath.Base(d) == ".bin" {
				if up != "/" && up != home && filepath.Dir(up) != "/" {
					out = append(out, up)
				}
			}
		}
	}
	if r := getenv("GOROOT"); r != "" {
		out = append(out, r)
	}
	return out
}

// devices are the device files every policy lets be written (see
// helper.Devices).
var devices = helper.Devices

// worktreeGit is, for a linked worktree at ws, what git needs to commit
// from it in the main checkout's .git, which is otherwise read-only to
// the agent: the worktree's own folder (.git/worktrees/NAME: its HEAD,
// index, logs), the object store (the new objects), and the folders of
// its branch's ref and reflog (a ref is written as NAME.lock, then
// renamed). The main checkout's HEAD, index, config, hooks and its other
// refs stay read-only. Nothing when ws is not a linked worktree.
func worktreeGit(ws string) []string {
	b, err := os.ReadFile(filepath.Join(ws, ".git"))
	if err != nil {
		return nil // a folder (a main checkout) or no repository
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return nil
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(ws, gitdir)
	}
	gitdir = filepath.Clean(gitdir)
	common := filepath.Join(gitdir, "..", "..")
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	common = filepath.Clean(common)
	out := []string{gitdir, filepath.Join(common, "objects")}
	head, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); err == nil && ok && strings.HasPrefix(ref, "refs/heads/") {
		refDir := filepath.Dir(filepath.FromSlash(ref))
		for _, d := range []string{filepath.Join(common, refDir), filepath.Join(common, "logs", refDir)} {
			// The reflog's folder may not exist yet; git would make it.
			_ = os.MkdirAll(d, 0o755)
			out = append(out, d)
		}
	}
	return out
}
