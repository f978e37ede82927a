package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/architect-dev/architect/config"
)

// checkOutputs keeps the files the checks create (coverage profiles, test
// reports, build output that .gitignore does not cover) out of the commits
// architect makes, unless config CommitCheckOutputs asks for them. A file
// counts as a check output when it appeared, untracked, during a checks
// phase; it stops counting once the agent changes it (it is then the
// agent's work). Files git ignores are never committed in any case.
//
// The list is kept in .architect/check-outputs.json, so that a later run
// (or a resumed one) in the same workspace still leaves them out.
type checkOutputs struct {
	loaded bool
	before map[string]bool      // untracked files when the current checks started
	paths  map[string]fileStamp // the check outputs, as the checks left them
}

// CheckOutputsFile lists the files the checks created, in .architect/.
const CheckOutputsFile = "check-outputs.json"

type fileStamp struct {
	Size int64     `json:"size"`
	Mod  time.Time `json:"mod"`
}

func stampOf(path string) (fileStamp, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileStamp{}, false
	}
	return fileStamp{fi.Size(), fi.ModTime().UTC()}, true
}

// load reads the list a previous run left, once.
func (co *checkOutputs) load(file string) {
	if co.loaded {
		return
	}
	co.loaded = true
	if data, err := os.ReadFile(file); err == nil {
		_ = json.Unmarshal(data, &co.paths)
	}
}

// save writes the list; a failure only means a later run may commit them.
func (co *checkOutputs) save(file string) {
	data, err := json.Marshal(co.paths)
	if err == nil {
		_ = os.WriteFile(file, data, 0o600)
	}
}

// commits reports whether this run commits its iterations: always in a
// worktree, and on the current branch in build mode.
func (r *runner) commits() bool {
	return r.ws.repo != nil && (r.ws.worktree != "" || r.cfg.Mode == config.ModeBuild)
}

// beforeChecks notes the untracked files as the checks start, and forgets
// the check outputs that the agent has since changed.
func (r *runner) beforeChecks(ctx context.Context) {
	co := &r.ws.outputs
	co.before = nil
	if !r.commits() || r.cfg.CommitCheckOutputs {
		return
	}
	co.load(r.ws.state(CheckOutputsFile))
	top := r.ws.repo.Dir()
	for p, st := range co.paths {
		if now, ok := stampOf(filepath.Join(top, p)); !ok || !now.Mod.Equal(st.Mod) || now.Size != st.Size {
			delete(co.paths, p)
		}
	}
	untracked, err := r.ws.untracked(ctx)
	if err != nil {
		return // nothing is left out of the commit this time
	}
	co.before = make(map[string]bool, len(untracked))
	for _, p := range untracked {
		co.before[p] = true
	}
}

// afterChecks records the untracked files the checks created.
func (r *runner) afterChecks(ctx context.Context) {
	co := &r.ws.outputs
	if co.before == nil {
		return
	}
	untracked, err := r.ws.untracked(ctx)
	if err != nil {
		return
	}
	top := r.ws.repo.Dir()
	defer co.save(r.ws.state(CheckOutputsFile))
	var fresh []string
	for _, p := range untracked {
		_, known := co.paths[p]
		if co.before[p] && !known {
			continue // the agent's (or the user's) file
		}
		if st, ok := stampOf(filepath.Join(top, p)); ok {
			if co.paths == nil {
				co.paths = map[string]fileStamp{}
			}
			co.paths[p] = st
			if !known {
				fresh = append(fresh, p)
			}
		}
	}
	if len(fresh) > 0 {
		r.logf("the checks created %s: left out of architect's commits (commit_check_outputs: true, or --commit-check-outputs, includes them)", listFew(fresh, 3))
	}
}

// listFew names up to n items, and how many more there are.
func listFew(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// leftOut lists the check outputs a commit leaves out.
func (co *checkOutputs) leftOut() []string {
	out := make([]string, 0, len(co.paths))
	for p := range co.paths {
		out = append(out, p)
	}
	return out
}
