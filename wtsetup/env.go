package wtsetup

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/architect-dev/architect/config"
)

// maxEnvFile bounds what Secrets reads of one copied file: .env files are
// small, and a large copied file (a folder's content is not read) holds
// no KEY=VALUE lines worth masking.
const maxEnvFile = 1 << 20

// Secrets returns the KEY=VALUE entries of the files w copies (each
// file an entry or a glob names directly; not the files inside a copied
// folder) as they are in the main checkout top, in the form os.Environ
// uses: the run's masking takes them as it takes the environment's, so a
// value copied into the worktree is masked as the same value in the
// environment would be. Lines are read as .env files write them: "export "
// and quotes around the value are dropped, comments and other lines
// skipped. What cannot be read gives nothing: Bring reports it.
func Secrets(top string, w config.WorktreeSetup) []string {
	ms, _, err := matches(top, config.WorktreeSetup{Copy: w.Copy})
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range ms {
		fi, err := os.Stat(m.abs)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		f, err := os.Open(m.abs)
		if err != nil {
			continue
		}
		out = append(out, envLines(io.LimitReader(f, maxEnvFile))...)
		_ = f.Close()
	}
	return out
}

// envLines reads the NAME=VALUE lines of a .env-style text.
func envLines(r io.Reader) []string {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEnvFile)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		line = strings.TrimPrefix(line, "export ")
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !envName(name) {
			continue
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		} else if i := strings.Index(value, " #"); i >= 0 {
			value = strings.TrimSpace(value[:i]) // an unquoted value's comment
		}
		if value != "" {
			out = append(out, name+"="+value)
		}
	}
	return out
}

// envName reports whether s can name an environment variable.
func envName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// cacheVars are the variables that move a package manager's download
// cache, and the folder each gets under the shared root. Go's build and
// module caches (GOCACHE, GOMODCACHE) and cargo's registry (CARGO_HOME)
// live in the user's home already, shared by every checkout, and are left
// alone.
var cacheVars = []struct{ name, dir string }{
	{"npm_config_cache", "npm"},
	{"YARN_CACHE_FOLDER", "yarn"},
	{"npm_config_store_dir", "pnpm-store"},
	{"BUN_INSTALL_CACHE_DIR", "bun"},
	{"UV_CACHE_DIR", "uv"},
	{"PIP_CACHE_DIR", "pip"},
}

// CacheRoot is the folder the shared caches live in: architect/caches
// in the user's cache folder (XDG_CACHE_HOME, ~/.cache, ~/Library/Caches,
// %LocalAppData%).
func CacheRoot() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "architect", "caches"), nil
}

// CacheEnv returns env (nil: this process's) with each package manager's
// cache variable pointing at its folder under root, which it creates; a
// variable env sets already is the user's choice and stays.
func CacheEnv(env []string, root string) ([]string, error) {
	if env == nil {
		env = os.Environ()
	}
	set := map[string]bool{}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	out := append([]string(nil), env...)
	for _, v := range cacheVars {
		if set[v.name] {
			continue
		}
		dir := filepath.Join(root, v.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return env, err
		}
		out = append(out, v.name+"="+dir)
	}
	return out, nil
}
