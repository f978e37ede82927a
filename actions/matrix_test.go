package actions_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/internal/acttest"
	"github.com/matryer/is"
)

// TestBatchMatrixWorkflow runs examples/workflows/batch-matrix.yml as
// users would (a workflow_dispatch), unchanged, with act: the plan job's
// matrix, one loop job per task (act expands the matrix), and the summary
// job. Offline, actions/setup-go, upload-artifact and download-artifact are
// small local stand-ins (testdata/batch/stubs; the artifacts go through a
// shared directory) and npm is a stub on PATH.
func TestBatchMatrixWorkflow(t *testing.T) {
	is := is.New(t)
	acttest.Bin(t)
	root := acttest.ModuleRoot(t)
	wf, err := os.ReadFile(filepath.Join(root, "examples", "workflows", "batch-matrix.yml"))
	is.NoErr(err)
	files := map[string]string{".github/workflows/batch-matrix.yml": string(wf)}
	for _, name := range []string{"agent.sh", "ralph-batch.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "batch", name))
		is.NoErr(err)
		files[name] = string(data)
	}
	stubs, err := filepath.Abs(filepath.Join("testdata", "batch", "stubs"))
	is.NoErr(err)
	artifacts := t.TempDir()
	local := acttest.ThisAction(t)
	local["actions/setup-go@v5"] = filepath.Join(stubs, "setup-go")
	local["actions/upload-artifact@v4"] = filepath.Join(stubs, "upload-artifact")
	local["actions/download-artifact@v4"] = filepath.Join(stubs, "download-artifact")
	r := acttest.Run(t, acttest.Options{
		Dir:        acttest.Repo(t, files),
		Event:      "workflow_dispatch",
		LocalRepos: local,
		Env: []string{
			"ARTIFACT_STUB_DIR=" + artifacts,
			"PATH=" + filepath.Join(stubs, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		},
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("act printed:\n%s", r.Log)
		}
	})

	// The plan job's output names every task of the batch file.
	var plan struct{ Task []string }
	for _, e := range r.Commands("set-output") {
		if e.JobID == "plan" && e.Name == "matrix" {
			is.NoErr(json.Unmarshal([]byte(e.Arg), &plan))
		}
	}
	is.Equal(plan.Task, []string{"alpha", "beta", "broken"})

	// One loop job per task. act keeps a single result for a whole matrix
	// (the aggregate that needs.loop.result gives on GitHub), so each entry's
	// outcome is read from its steps: only broken's run step fails, and the
	// steps after it (push, upload) still run.
	steps := map[string]map[string]string{} // task → step id → result
	for _, e := range r.Events {
		task, _ := e.Matrix["task"].(string)
		if e.JobID != "loop" || task == "" || e.StepResult == "" || e.Stage != "Main" || len(e.StepID) != 1 {
			continue
		}
		if steps[task] == nil {
			steps[task] = map[string]string{}
		}
		steps[task][e.StepID[0]] = e.StepResult
	}
	is.Equal(len(steps), 3) // a job for each task, and no other
	for task, want := range map[string]string{"alpha": "success", "beta": "success", "broken": "failure"} {
		is.Equal(steps[task]["run"], want) // the task's architect batch --only
		for id, res := range steps[task] {
			if id != "run" && res != "success" {
				t.Errorf("task %s: step %s: %s", task, id, res)
			}
		}
		is.True(r.Printed("uploaded result-" + task))
		is.True(r.Printed("downloaded result-" + task))
	}
	is.Equal(jobResult(r, "loop"), "failure") // fail-fast: false, yet the matrix failed

	// The summary job ran anyway, listed every task with its outcome in the
	// step summary, and failed because not every task succeeded.
	sum := r.Summaries()
	is.True(strings.Contains(sum, "## architect batch: ❌ not every task succeeded"))
	is.True(strings.Contains(sum, "| alpha | succeeded | all_checks_passed | 1 |"))
	is.True(strings.Contains(sum, "| beta | succeeded | all_checks_passed | 1 |"))
	is.True(strings.Contains(sum, "| broken | failed | max_iterations | 2 |"))
	is.True(r.Printed("uploaded batch-result"))
	is.Equal(jobResult(r, "summary"), "failure")
	is.Equal(jobResult(r, "plan"), "success")
	for _, f := range []string{"result-alpha/result-alpha.json", "result-broken/result-broken.json", "batch-result/batch-result.json"} {
		_, err := os.Stat(filepath.Join(artifacts, f))
		is.NoErr(err) // uploaded artifact
	}
}

// jobResult is the last result reported for job id (see acttest.Event
// for matrices).
func jobResult(r *acttest.Result, id string) string {
	res := ""
	for _, e := range r.Events {
		if e.JobID == id && e.JobResult != "" {
			res = e.JobResult
		}
	}
	return res
}
