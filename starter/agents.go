package starter

import "github.com/architect-dev/architect/agent"

// PickAgent finds the agent CLIs installed (looked up with lookPath) and
// picks the first in agent.CLIs' order of preference; "" when none is.
// found lists the agent names of every installed one.
func PickAgent(lookPath func(string) (string, error)) (picked string, found []string) {
	for _, c := range agent.CLIs() {
		if _, err := lookPath(c.Bin); err == nil {
			found = append(found, c.Agent)
		}
	}
	if len(found) > 0 {
		picked = found[0]
	}
	return picked, found
}

// InstallHint says how to install the default agent's CLI.
func InstallHint() string {
	c, _ := agent.CLIFor(agent.Default)
	return c.Install
}
