//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// setupScenario measures worktree_setup on a Node project: a batch of 10
// tasks, each in its own worktree whose setup command is `npm ci` from a
// lockfile (real packages from the npm registry, which must be
// reachable), three ways:
//
//   - private caches: each worktree's npm cache is its own (what a fresh
//     machine, a container or a sandbox with a private home gets);
//   - shared caches (worktree_setup caches: on, the default), first on an
//     empty shared cache, then on the warm one a second batch finds;
//   - node_modules linked from the main checkout (link: [node_modules]),
//     no setup command.
//
// It reports the median setup time per worktree (the setup's duration in
// each task's state), the batch's wall time, and the disk per worktree
// (its files, node_modules included) and of the shared cache.
func setupScenario() {
	if _, err := exec.LookPath("npm"); err != nil {
		fmt.Fprintln(os.Stderr, "bench: setup: npm is not installed: skipped")
		return
	}
	dir := nodeFixture()
	const tasks = 10
	agent := filepath.Join(tmp, "complete.sh")
	must(os.WriteFile(agent, []byte("#!/bin/sh\necho '<promise>COMPLETE</promise>'\n"), 0o755))
	batch := func(name, setup string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "defaults:\n  agent_cmd: %s\n  checks: [\"test -d node_modules/express\"]\n  max_iterations: 1\n  sandbox: off\n  final_check: off\n  worktree_setup:\n%s", agent, setup)
		b.WriteString("tasks:\n")
		for i := range tasks {
			fmt.Fprintf(&b, "  - id: t%d\n    task: noop %d\n", i, i)
		}
		file := filepath.Join(tmp, name+".yaml")
		must(os.WriteFile(file, []byte(b.String()), 0o644))
		return file
	}
	const npmCI = "npm ci --ignore-scripts --no-audit --no-fund --loglevel=error"
	cacheRoot := filepath.Join(os.Getenv("HOME"), ".cache", "architect", "caches")
	reset := func() {
		must(os.RemoveAll(filepath.Join(dir, ".architect-worktrees")))
		git(dir, "worktree", "prune")
		for i := range tasks {
			_ = exec.Command("git", "-C", dir, "branch", "-D", fmt.Sprintf("architect/t%d", i)).Run()
		}
	}
	measure := func(label, file string) {
		reset()
		start := time.Now()
		cmd := exec.Command(bin, "batch", file, "-C", dir, "--parallel", "2", "--quiet")
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		failed := 0
		if err != nil {
			// A task whose npm ci met a network error ends as a setup
			// error; the others are measured, and the count said.
			failed = strings.Count(string(out), "setup_error")
			fmt.Fprintf(os.Stderr, "bench: setup: %s: %v\n%s", label, err, out)
		}
		var setups []float64
		var disk []int64
		for i := range tasks {
			wt := filepath.Join(dir, ".architect-worktrees", fmt.Sprintf("t%d", i))
			var st struct {
				Setup *struct {
					Duration float64 `json:"duration"`
					Passed   bool    `json:"passed"`
				} `json:"setup"`
			}
			if data, err := os.ReadFile(filepath.Join(wt, ".architect", "state.json")); err == nil {
				_ = json.Unmarshal(data, &st)
			}
			if st.Setup != nil && st.Setup.Passed {
				setups = append(setups, st.Setup.Duration)
			}
			disk = append(disk, diskUsage(wt))
		}
		setup := "none"
		if len(setups) > 0 {
			setup = fmt.Sprintf("%.1f s", median(setups))
		}
		slices.Sort(disk)
		report(fmt.Sprintf("worktree setup, batch of %d on a Node project (`--parallel 2`), %s", tasks, label),
			fmt.Sprintf("setup %s per worktree (median of the %d that passed; %d setup errors); batch %.0f s; disk %.1f MB per worktree; shared cache %.1f MB", setup, len(setups), failed, wall.Seconds(),
				float64(disk[len(disk)/2])/1e6, float64(diskUsage(cacheRoot))/1e6), "-", true)
	}
	// Private caches: each worktree's own, inside it (ignored by git).
	measure("private npm cache per worktree", batch("private", "    caches: off\n    command: "+npmCI+" --cache .npm-cache\n"))
	must(os.RemoveAll(cacheRoot))
	measure("shared caches, empty at the start", batch("shared", "    command: "+npmCI+"\n"))
	measure("shared caches, warm", batch("shared", "    command: "+npmCI+"\n"))
	// node_modules installed once in the main checkout, linked.
	install := exec.Command("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		fatal(fmt.Errorf("npm ci in the main checkout: %w\n%s", err, out))
	}
	measure("node_modules linked from the main checkout", batch("linked", "    link: [node_modules]\n"))
	reset()
}

// nodeFixture is a committed Node project with a few real dependencies
// and their lockfile (made with npm install --package-lock-only).
func nodeFixture() string {
	dir := filepath.Join(tmp, "node")
	must(os.MkdirAll(dir, 0o755))
	must(os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{
  "name": "setup-fixture",
  "version": "1.0.0",
  "private": true,
  "dependencies": {
    "express": "4.21.2",
    "lodash": "4.17.21",
    "dayjs": "1.11.13",
    "zod": "3.24.1"
  }
}
`), 0o644))
	must(os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules/\n.npm-cache/\n"), 0o644))
	lock := exec.Command("npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	lock.Dir = dir
	if out, err := lock.CombinedOutput(); err != nil {
		fatal(fmt.Errorf("npm install --package-lock-only: %w\n%s", err, out))
	}
	git(dir, "init", "-q")
	git(dir, "add", "-A")
	git(dir, "-c", "gc.auto=0", "commit", "-q", "-m", "fixture")
	return dir
}

// diskUsage is the space the files under dir take (blocks allocated,
// links not followed); 0 when it is gone.
func diskUsage(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			}
		}
		return nil
	})
	return n
}
