package agent

// CLI is an agent's command-line program: the executable its adapter runs
// unless --agent-bin names another, and how to install it. Pre-flight
// checks that it runs before a loop starts; init picks an installed one.
type CLI struct {
	Agent   string // the agent's name (--agent)
	Bin     string // the usual executable, looked up on PATH
	Install string // what to do when it is missing
}

// clis lists the CLI agents in the order init prefers them when several
// are installed: architect's default first, then the ones that report
// their cost or tokens best.
var clis = []CLI{
	{"claude", "claude", claudeInstallHint},
	{"codex", "codex", codexInstallHint},
	{"gemini", "gemini", geminiInstallHint},
	{"opencode", "opencode", opencodeInstallHint},
	{"cursor", "cursor-agent", cursorInstallHint},
	{"amp", "amp", ampInstallHint},
	{"aider", "aider", aiderInstallHint},
}

// CLIs lists the agents that are command-line programs, init's preference
// first.
func CLIs() []CLI { return append([]CLI(nil), clis...) }

// CLIFor returns the program of the agent name; false for the command agent
// and unknown names.
func CLIFor(name string) (CLI, bool) {
	for _, c := range clis {
		if c.Agent == name {
			return c, true
		}
	}
	return CLI{}, false
}

// Binary returns the executable a runs (its --agent-bin or its usual
// name), or "" for an agent that is not one program (the command agent).
func Binary(a Agent) string {
	if b, ok := a.(interface{ binary() string }); ok {
		return b.binary()
	}
	return ""
}

func (c cliAdapter) binary() string { return c.bin }
