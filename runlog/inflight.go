package runlog

import (
	"encoding/json"
	"os"
)

// Inflight is the iteration running now, as .architect/current.json keeps
// it: when it started and what its agent has spent so far. It is written
// when the agent starts and each time the agent reports more spending, and
// removed once the iteration is recorded. A run killed in between leaves
// it behind, and a resume records that iteration from it (interrupted:
// killed), with the cost it had reached: a SIGKILL loses no money from the
// account.
type Inflight struct {
	Iteration int      `json:"iteration"`
	Agent     string   `json:"agent,omitempty"` // what it runs on, for the cost per agent
	Model     string   `json:"model,omitempty"`
	StartedAt string   `json:"started_at"`
	UpdatedAt string   `json:"updated_at"`
	Cost      *float64 `json:"cost"` // null: unknown so far
	Tokens    *Tokens  `json:"tokens,omitempty"`
	// AgentDuration is set once the agent has finished (seconds): the
	// checks may still be running.
	AgentDuration *float64 `json:"agent_duration,omitempty"`
}

// ReadInflight reads the inflight file a killed run left; nil when there
// is none or it cannot be read.
func ReadInflight(path string) *Inflight {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var f Inflight
	if json.Unmarshal(data, &f) != nil || f.Iteration < 1 {
		return nil
	}
	return &f
}
