package loop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/google/renameio/v2"
)

// Run statuses in state.json.
const (
	StatusRunning   = "running"
	StatusPaused    = "paused"
	StatusWaiting   = "waiting"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusStopped   = "stopped"
)

// Files in .architect/.
const (
	StateFile      = "state.json"
	RecordsFile    = "iterations.jsonl"
	IterationsLog  = "iterations.log"
	ControlFile    = "control.json"
	LockFile       = "lock"
	DoneFile       = "DONE"
	WaitFile       = "WAIT"
	resultFileName = "result.json"
)

// State is the run's durable state, written atomically at every phase
// change. The fields up to IdleIterations are seed 000's; the counters are
// recomputed from the iteration records (iterations.jsonl) so that a run
// killed at any instant resumes consistently.
type State struct {
	Active            bool    `json:"active"`
	Iteration         int     `json:"iteration"` // the iteration running, or the last one completed
	Mode              string  `json:"mode"`
	StartedAt         string  `json:"started_at"`
	LastIterationAt   string  `json:"last_iteration_at,omitempty"`
	MaxIterations     int     `json:"max_iterations"`
	ErrorCount        int     `json:"error_count"`
	ConsecutiveErrors int     `json:"consecutive_errors"`
	LastError         string  `json:"last_error,omitempty"`
	LastCommit        string  `json:"last_commit,omitempty"`
	IdleIterations    int     `json:"idle_iterations"`
	Status            string  `json:"status"`
	Phase             string  `json:"phase"`
	PID               int     `json:"pid"`
	TotalCost         float64 `json:"total_cost"`
	TotalCostKnown    bool    `json:"total_cost_known"`
	Timeouts          int     `json:"timeouts"`
	StopReason        string  `json:"stop_reason,omitempty"`
	StopDetail        string  `json:"stop_detail,omitempty"`
	WaitUntil         string  `json:"wait_until,omitempty"` // backoff or usage-limit wait
	// Elapsed is the wall time of earlier sessions of this run, in seconds,
	// so --max-time spans resumes.
	Elapsed      float64       `json:"elapsed"`
	InitialRef   string        `json:"initial_ref"`
	InitialTree  string        `json:"initial_tree,omitempty"`
	Workspace    string        `json:"workspace"`
	WorktreePath string        `json:"worktree_path,omitempty"`
	Branch       string        `json:"branch,omitempty"`
	Config       config.Config `json:"config"`
	// Processes says where this run's processes are (the architect
	// process, its supervisor, the run cgroup, the run marker), so that
	// if it is killed, the next run in the workspace ends what it left.
	Processes *proc.Owner `json:"processes,omitempty"`
}

// Resumable reports whether a run in this state can be continued.
func (s *State) Resumable() bool {
	return s.Status != StatusSucceeded
}

// ReadState reads a workspace's state.json.
func ReadState(workspace string) (*State, error) {
	data, err := os.ReadFile(statePath(workspace, StateFile))
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged: %v", statePath(workspace, StateFile), err)
	}
	return &s, nil
}

func statePath(workspace, name string) string {
	return workspace + string(os.PathSeparator) + StateDir + string(os.PathSeparator) + name
}

func writeJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return renameio.WriteFile(path, append(data, '\n'), 0o600)
}

// writeJSONQuick replaces path atomically (write a temporary file, rename
// it into place) without waiting for the disk: safe against the process
// being killed, not against the machine losing power.
func writeJSONQuick(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// record is one completed iteration, as appended to iterations.jsonl.
type record struct {
	Iteration
	Tree     string `json:"tree,omitempty"`      // working tree snapshot after the iteration
	ChecksID string `json:"checks_id,omitempty"` // the check results, for idle detection
	Failed   bool   `json:"agent_failed"`        // counts toward backoff and the circuit breaker
}

// appendRecord appends r as one line and syncs it: once this returns, the
// iteration counts as done.
func appendRecord(path string, r record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readRecords reads the completed iterations. A torn last line (a run
// killed while appending) is cut off, so it is neither counted nor left to
// corrupt the next append; a repeated iteration number keeps the first.
func readRecords(path string) ([]record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []record
	seen := map[int]bool{}
	good := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var r record
		if len(line) == 0 || json.Unmarshal(line, &r) != nil || r.Iteration.Iteration != len(out)+1 && seen[r.Iteration.Iteration] {
			break
		}
		if good+len(line) >= len(data) || data[good+len(line)] != '\n' {
			break // no newline: torn
		}
		good += len(line) + 1
		if seen[r.Iteration.Iteration] {
			continue
		}
		seen[r.Iteration.Iteration] = true
		out = append(out, r)
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
