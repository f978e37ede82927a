package loop

import (
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
	// InflightFile describes the iteration running now (see inflight).
	InflightFile = "current.json"
	// AgentResultFile is where a command agent reports its cost and final
	// message (ARCHITECT_RESULT_FILE).
	AgentResultFile = "agent-result.json"
)

// State is the run's durable state, written atomically at every phase
// change. The fields up to IdleIterations are seed 000's; the counters are
// recomputed from the iteration records (iterations.jsonl) so that a run
// killed at any instant resumes consistently.
type State struct {
	Active            bool   `json:"active"`
	Iteration         int    `json:"iteration"` // the iteration running, or the last one completed
	Mode              string `json:"mode"`
	StartedAt         string `json:"started_at"`
	LastIterationAt   string `json:"last_iteration_at,omitempty"`
	MaxIterations     int    `json:"max_iterations"`
	ErrorCount        int    `json:"error_count"`
	ConsecutiveErrors int    `json:"consecutive_errors"`
	LastError         string `json:"last_error,omitempty"`
	LastCommit        string `json:"last_commit,omitempty"`
	IdleIterations    int    `json:"idle_iterations"`
	Status            string `json:"status"`
	Phase             string `json:"phase"`
	PID               int    `json:"pid"`
	// TotalCost is null when some iteration's cost is unknown; KnownCost
	// is then what is known of it.
	TotalCost             *float64 `json:"total_cost"`
	TotalCostKnown        bool     `json:"total_cost_known"`
	KnownCost             float64  `json:"known_cost"`
	UnknownCostIterations int      `json:"unknown_cost_iterations,omitempty"`
	Timeouts              int      `json:"timeouts"`
	// UsageLimitWaits and UsageLimitWaited count the waits for the agent's
	// usage limit and their total in seconds, over every session of the
	// run: the total is capped (max_usage_wait).
	UsageLimitWaits  int     `json:"usage_limit_waits,omitempty"`
	UsageLimitWaited float64 `json:"usage_limit_waited,omitempty"`
	StopReason       string  `json:"stop_reason,omitempty"`
	StopDetail       string  `json:"stop_detail,omitempty"`
	WaitUntil        string  `json:"wait_until,omitempty"` // backoff or usage-limit wait
	Waits            []Wait  `json:"waits,omitempty"`      // the usage-limit waits (the last 100)
	// Agent is the agent (AGENT[:MODEL]) the run uses now; Agents, with
	// fallbacks or after a usage limit, which are set aside and until
	// when; Switches every change of agent.
	Agent    string      `json:"agent,omitempty"`
	Agents   []AgentSlot `json:"agents,omitempty"`
	Switches []Switch    `json:"switches,omitempty"`
	// Stalls are the times the loop went round in circles; StallSince is
	// the iteration after which stalls are counted again (the last
	// reaction's).
	Stalls     []Stall `json:"stalls,omitempty"`
	StallSince int     `json:"stall_since,omitempty"`
	// PausedFor says why the loop paused itself (a stall, with --on-stall
	// pause): a note (architect say) resumes it too.
	PausedFor string `json:"paused_for,omitempty"`
	// Elapsed is the wall time of earlier sessions of this run, in seconds,
	// so --max-time spans resumes.
	Elapsed     float64 `json:"elapsed"`
	InitialRef  string  `json:"initial_ref"`
	InitialTree string  `json:"initial_tree,omitempty"`
	// DoneFileAtStart identifies the --done-file found when the run began
	// (modification time and size): it signals completion only once changed.
	DoneFileAtStart string `json:"done_file_at_start,omitempty"`
	Workspace       string `json:"workspace"`
	WorktreePath    string `json:"worktree_path,omitempty"`
	Branch          string `json:"branch,omitempty"`
	// Config is the run's configuration with its secrets masked; Redacted
	// names the keys whose values lost a secret that way (and must be given
	// again to resume the run).
	Config   config.Config `json:"config"`
	Redacted []string      `json:"redacted,omitempty"`
	// Processes says where this run's processes are (the architect
	// process, its supervisor, the run cgroup, the run marker), so that
	// if it is killed, the next run in the workspace ends what it left.
	Processes *proc.Owner `json:"processes,omitempty"`
}

// Cost is the total cost of the run so far.
func (s *State) Cost() Cost {
	return Cost{Known: s.KnownCost, Unknown: s.UnknownCostIterations, Iterations: s.Iteration}
}

// Interrupted reports whether the run stopped before it was over, in a way
// that --resume continues: cancelled, waiting, paused, or killed (still
// marked active while no process holds its lock).
func (s *State) Interrupted(running bool) bool {
	switch {
	case s.Status == StatusSucceeded:
		return false
	case s.Active:
		return !running
	}
	return s.Status == StatusStopped || s.Status == StatusWaiting || s.Status == StatusPaused
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
	// NoteIDs are the notes the iteration's prompt carried: delivered once
	// the record is written (see notes.go).
	NoteIDs []string `json:"note_ids,omitempty"`

	patternFound bool // the done pattern matched the final message (this session only)
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

// readRecords reads the recorded iterations. A line that is not a whole
// record (a run killed while appending: no newline, or not JSON) is cut
// off with everything after it, so it is neither counted nor left to
// corrupt the next append. A record of an iteration already read (an
// append repeated) is skipped, and the file keeps it: what follows it is
// still read. A record out of order (damage no run of architect makes)
// stops the reading; it and what follows are moved to iterations.jsonl.cut
// rather than lost.
func readRecords(path string) ([]record, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []record
	good := 0
	for good < len(data) {
		end := bytes.IndexByte(data[good:], '\n')
		if end < 0 {
			break // no newline: torn
		}
		line := data[good : good+end]
		var r record
		if json.Unmarshal(line, &r) != nil {
			break
		}
		switch n := r.Iteration.Iteration; {
		case n == len(out)+1:
			out = append(out, r)
		case n >= 1 && n <= len(out):
			// The same iteration again: the first record stands.
		default:
			if err := appendFile(path+".cut", string(data[good:])); err != nil {
				return nil, err
			}
			return out, truncateAt(path, good, len(data))
		}
		good += end + 1
	}
	return out, truncateAt(path, good, len(data))
}

// truncateAt cuts the file at good when that is before its end.
func truncateAt(path string, good, size int) error {
	if good < size {
		return os.Truncate(path, int64(good))
	}
	return nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
