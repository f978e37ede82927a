package runlog

// The agents of a run, their switches, stalls and waits, as the state and
// the result keep them.

// Why the run switched agents (Switch.Reason, agent_switched events).
const (
	SwitchUsageLimit = "usage_limit" // the agent hit its usage limit
	SwitchOutage     = "outage"      // the agent failed with an outage past --outage-retries
	SwitchStall      = "stall"       // the loop stalled on the agent (--on-stall fallback)
	SwitchBack       = "available"   // an earlier agent is free again
)

// AgentSlot is one agent of the run as the state keeps it: whether it is
// set aside, until when, and why.
type AgentSlot struct {
	Agent string `json:"agent"` // its label: "claude", "codex:gpt-5.5"
	// Until is when the agent may be used again (RFC 3339); empty: free.
	Until string `json:"until,omitempty"`
	// Exact says that Until is the reset time the agent gave (plus a
	// margin), not a guess.
	Exact   bool   `json:"exact,omitempty"`
	Reason  string `json:"reason,omitempty"`  // usage_limit, outage or stall
	Retired bool   `json:"retired,omitempty"` // stalled: not used again in this run
	// Guesses counts the usage-limit waits in a row without a reset time,
	// which double (60 s, 2 min, … up to 30 min).
	Guesses int `json:"guesses,omitempty"`
}

// Switch is one change of agent.
type Switch struct {
	Iteration int    `json:"iteration"` // the iteration that runs on To
	From      string `json:"from"`
	To        string `json:"to"`
	Reason    string `json:"reason"`
	Detail    string `json:"detail,omitempty"`
	At        string `json:"at"`
}

// Kinds of stall (Stall.Kind, stall events).
const (
	StallSameFailures = "same_failures" // the same checks failed with the same output
	StallReverted     = "reverted"      // the changes went back to an earlier state
)

// Stall is one time the loop went round in circles, and what it did.
type Stall struct {
	Iteration  int    `json:"iteration"`  // the iteration that made it a stall
	Kind       string `json:"kind"`       // same_failures or reverted
	Iterations int    `json:"iterations"` // how many in a row
	Agent      string `json:"agent"`      // the agent it happened on
	Action     string `json:"action"`     // stop, fallback or pause
	Detail     string `json:"detail"`
}

// Wait is one usage-limit wait, as the state and the result list them.
type Wait struct {
	Iteration int     `json:"iteration"` // the iteration that waited to start
	Agent     string  `json:"agent"`     // the agent waited for
	Seconds   float64 `json:"seconds"`   // how long it lasted
	Until     string  `json:"until"`     // when it was to end
	Exact     bool    `json:"exact,omitempty"`
	ResetAt   string  `json:"reset_at,omitempty"` // the reset time the agent gave
	Cut       bool    `json:"cut,omitempty"`      // ended early: a pause or a note
}
