package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
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

// Phases of a run in state.json (State.Phase); the waits and steering
// have phases of their own ("paused", "backoff", "usage_limit_wait", …).
const (
	PhaseStarting = "starting"
	PhaseAgent    = "agent"  // an iteration's agent runs (see ReadStateNow)
	PhaseChecks   = "checks" // its checks run
	PhaseRecorded = "recorded"
	PhaseFinished = "finished"
)

// State is the run's durable state, written atomically at every phase
// change. The fields up to IdleIterations are the format's first ones,
// kept as they were; the counters are recomputed from the iteration records (iterations.jsonl) so that a run
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
	// Question is the agent's question waiting for an answer, or
	// answered (or timed out) and not yet carried by a recorded prompt.
	Question *Question `json:"question,omitempty"`
	// Elapsed is the wall time of earlier sessions of this run, in seconds,
	// so --max-time spans resumes.
	Elapsed     float64 `json:"elapsed"`
	InitialRef  string  `json:"initial_ref"`
	InitialTree string  `json:"initial_tree,omitempty"`
	// DoneFileAtStart identifies the --done-file found when the run began
	// (modification time and size): it signals completion only once changed.
	DoneFileAtStart string `json:"done_file_at_start,omitempty"`
	// EnvAtStart holds the fingerprints (package envdirs) of the ignored
	// environment entries of the workspace (node_modules, .venv, .env…)
	// when the run began: the clean last look brings in only those still
	// as they were.
	EnvAtStart   map[string]string `json:"env_at_start,omitempty"`
	Workspace    string            `json:"workspace"`
	WorktreePath string            `json:"worktree_path,omitempty"`
	Branch       string            `json:"branch,omitempty"`
	// Config is the run's configuration (config.Config) with its secrets
	// masked, as JSON: read it with DecodeConfig. Redacted names the keys
	// whose values lost a secret that way (and must be given again to
	// resume the run).
	Config   json.RawMessage `json:"config"`
	Redacted []string        `json:"redacted,omitempty"`
	// Processes says where this run's processes are (proc.Owner: the
	// architect process, its supervisor, the run cgroup, the run marker),
	// so that if it is killed, the next run in the workspace ends what it
	// left.
	Processes json.RawMessage `json:"processes,omitempty"`
	// Setup is how the worktree's setup command (worktree_setup.command)
	// ran; absent when the run has none. A resumed run whose setup passed
	// does not run it again.
	Setup *Setup `json:"setup,omitempty"`
}

// DecodeConfig reads the run's configuration into cfg (a *config.Config);
// a state without one leaves cfg as it is.
func (s *State) DecodeConfig(cfg any) error {
	if len(s.Config) == 0 {
		return nil
	}
	return json.Unmarshal(s.Config, cfg)
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
	return readState(Path(workspace, StateFile))
}

// ReadStateIn reads the state.json in dir: a workspace's .architect, or an
// archived run's folder.
func ReadStateIn(dir string) (*State, error) {
	return readState(filepath.Join(dir, StateFile))
}

func readState(path string) (*State, error) { return readJSON[State](path) }

// readJSON reads one record file; a file that does not parse is Damaged.
func readJSON[T any](path string) (*T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, Damaged(path, err)
	}
	return &v, nil
}

// WriteJSON replaces path with v, indented, atomically and durably (synced
// to disk before it is renamed into place).
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(data, '\n'), 0o600)
}

// WriteJSONQuick replaces path atomically (write a temporary file, rename
// it into place) without waiting for the disk: safe against the process
// being killed, not against the machine losing power.
func WriteJSONQuick(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileQuick(path, append(data, '\n'))
}

// WriteFileQuick replaces path with data (mode 0600) atomically, without
// waiting for the disk: for files derived from others or rewritten often.
func WriteFileQuick(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadResult reads a workspace's result.json: the outcome of the run's
// last session that ended.
func ReadResult(workspace string) (*Result, error) {
	return ReadResultIn(filepath.Join(workspace, StateDir))
}

// ReadResultIn reads the result.json in dir (a workspace's .architect, or
// an archived run's folder).
func ReadResultIn(dir string) (*Result, error) {
	return readJSON[Result](filepath.Join(dir, ResultFile))
}

// ReadStateNow reads a workspace's state as it is now, for what shows a
// running loop (architect status). The loop writes state.json between
// iterations and at every other change of phase, not in the middle of one:
// the iteration running is in current.json (Inflight), written anyway as
// its agent starts and ends, and left behind a little after its record
// (until the record is on disk). ReadStateNow puts an iteration that is
// not recorded yet in: its number, when it started, and its phase,
// "agent" until its agent has finished, then "checks" (for a run that has
// checks).
func ReadStateNow(workspace string) (*State, error) {
	st, err := ReadState(workspace)
	if err != nil || !st.Active {
		return st, err
	}
	f := ReadInflight(Path(workspace, InflightFile))
	if f == nil || f.Iteration < st.Iteration {
		return st, nil
	}
	if data, err := os.ReadFile(Path(workspace, RecordsFile)); err != nil && !errors.Is(err, os.ErrNotExist) ||
		f.Iteration <= bytes.Count(data, []byte{'\n'}) {
		return st, nil // recorded already (or the records cannot be read)
	}
	st.Iteration = f.Iteration
	if t, err := time.Parse(time.RFC3339Nano, f.StartedAt); err == nil {
		st.LastIterationAt = Stamp(t)
	}
	st.Phase = PhaseAgent
	if f.AgentDuration != nil {
		var cfg struct {
			Checks []string `json:"checks"`
		}
		if st.DecodeConfig(&cfg) == nil && len(cfg.Checks) > 0 {
			st.Phase = PhaseChecks
		}
	}
	return st, nil
}

// Damaged is the error for a record file that does not parse: it names the
// file and keeps the parser's error in the chain.
func Damaged(path string, err error) error {
	return fmt.Errorf("%s is damaged: %w", path, err)
}
