// Package actions_test runs action.yml, the GitHub Action, the way users
// call it (uses: OWNER/architect@v1), with nektos/act offline; the
// scripts it runs are in this directory.
package actions_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/internal/acttest"
	"github.com/matryer/is"
)

// repo is a workflow repository: the project from testdata/project and
// the workflow testdata/workflows/name (plus its event file, if any).
func repo(t *testing.T, name string) string {
	t.Helper()
	files := map[string]string{}
	read := func(src, dst string) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		files[dst] = string(data)
	}
	entries, err := os.ReadDir("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		read(filepath.Join("testdata/project", e.Name()), e.Name())
	}
	read(filepath.Join("testdata/workflows", name), ".github/workflows/"+name)
	ev := strings.TrimSuffix(name, ".yml") + "-event.json"
	if _, err := os.Stat(filepath.Join("testdata/workflows", ev)); err == nil {
		read(filepath.Join("testdata/workflows", ev), ev)
	}
	return acttest.Repo(t, files)
}

func run(t *testing.T, workflow string, opts acttest.Options) *acttest.Result {
	t.Helper()
	acttest.Bin(t)
	opts.Dir = repo(t, workflow)
	opts.Workflow = workflow
	local := acttest.ThisAction(t)
	for k, v := range opts.LocalRepos {
		local[k] = v
	}
	opts.LocalRepos = local
	r := acttest.Run(t, opts)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("steps printed:\n%s", r.Output())
		}
	})
	return r
}

func TestActionSuccess(t *testing.T) {
	is := is.New(t)
	r := run(t, "success.yml", acttest.Options{})
	is.Equal(r.StepResult("arch"), "success")
	is.Equal(r.JobResult(), "success")
	is.True(r.Printed("success=true stop=all_checks_passed iterations=1 cost=0.25 branch=architect/ralph-loop"))
	is.True(r.Printed("worktree exists"))
	is.True(r.Printed("result-json has the stop reason"))
	is.True(r.Printed("architect is on PATH"))

	sum := r.Summaries()
	is.True(strings.Contains(sum, "## ✅ architect: success"))
	is.True(strings.Contains(sum, "| 1 | ✅ 2/2 | yes | $0.2500 |"))
	is.True(strings.Contains(sum, "calc.go | 2 +-"))

	groups := r.Commands("group")
	is.True(len(groups) > 0)
	is.Equal(groups[0].Arg, "iteration 1/3")
	is.Equal(len(r.Commands("error")), 0)
	var masked bool
	for _, m := range r.Commands("add-mask") {
		masked = masked || m.Arg == "not-a-real-token-value"
	}
	is.True(masked) // MY_API_TOKEN's value is masked
}

func TestActionExhaustsIterations(t *testing.T) {
	is := is.New(t)
	r := run(t, "exhaust.yml", acttest.Options{})
	is.Equal(r.StepResult("arch"), "failure")
	is.Equal(r.JobResult(), "failure")
	is.True(r.Printed("success=false stop=max_iterations iterations=2"))

	sum := r.Summaries()
	is.True(strings.Contains(sum, "## ❌ architect: no success"))
	is.True(strings.Contains(sum, "Stopped on `max_iterations`: the limit of 2 iterations was reached after 2 iterations."))
	is.True(strings.Contains(sum, "| 2 | ❌ 0/1 (failing: `./check.sh`) | no | $0.2500 |"))

	errs := r.Commands("error")
	is.Equal(len(errs), 1)
	is.Equal(errs[0].KV["file"], "calc.go")
	is.Equal(errs[0].KV["line"], "3")
	is.Equal(errs[0].KV["col"], "34")
	is.Equal(errs[0].KV["title"], "check failed: ./check.sh")
	is.Equal(errs[0].Arg, "Add(1, 2) = -1, want 3")
}

func TestActionTaskIsNotEvaluated(t *testing.T) {
	is := is.New(t)
	r := run(t, "injection.yml", acttest.Options{Event: "issues", EventFile: "injection-event.json"})
	is.Equal(r.StepResult("arch"), "success")
	is.True(r.Printed("the task arrived verbatim"))
	is.True(r.Printed("no pwned file"))
	_ = filepath.WalkDir(r.Tmp, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "pwned" {
			t.Errorf("found %s", path)
		}
		return nil
	})
}
