package batch

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/config"
)

// FuzzBatchFile: whatever a batch file holds, reading it never panics, a
// failure is a list of problems that each say where they are, and every
// task of a file that is accepted has a configuration its loop's records
// can hold: it survives JSON (state.json) unchanged.
func FuzzBatchFile(f *testing.F) {
	f.Add("defaults:\n  agent_cmd: x\n  checks: [true]\ntasks:\n  - id: a\n    task: do it\n    max_cost: 2\n")
	f.Add("tasks:\n  - id: a\n    task: t\n    agent_cmd: x\n    max_cost: NaN\n")
	f.Add("defaults:\n  prices: {m: {input: .inf}}\ntasks:\n  - {id: a, task: t, agent_cmd: x}\n")
	f.Add("tasks:\n  - id: \"a\\x1bb\"\n  - id: a\n  - [1]\n")
	f.Add("tasks:\n  - id: a\n    task: t\n    agent_cmd: x\n    max_time: 9300000000\n    model: \"\\0\"\n")
	f.Add("defaults:\n  agent_cmd: x\n  checks: [true]\n  candidates: [{agent: codex}, {agent: command, agent_cmd: y}]\ntasks:\n  - {id: a, task: t}\n  - {id: b, task: t, candidates: 3, candidates_finish: all}\n  - {id: c, task: t, candidates: [{agent: claude, model: m}], candidates_lessons: off}\n")
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(t.TempDir(), "batch.yaml")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		tasks, _, err := Load(path)
		if err != nil {
			var es config.Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("Load error %T %v: not a list of problems", err, err)
			}
			for _, e := range es {
				if e.Source == "" || e.Msg == "" {
					t.Fatalf("problem without a source or a message: %+v", e)
				}
			}
			return
		}
		for _, task := range tasks {
			data, err := json.Marshal(task.Config)
			if err != nil {
				t.Fatalf("task %s: an accepted configuration cannot be saved: %v", task.ID, err)
			}
			// Go's encoder writes invalid UTF-8 as \ufffd, silently: the
			// records would hold another text.
			if strings.Contains(string(data), `\ufffd`) {
				t.Fatalf("task %s: an accepted configuration is saved changed: %s", task.ID, data)
			}
		}
	})
}
