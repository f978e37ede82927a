package agent

import (
	"fmt"
	"sort"
	"strings"
)

// Config selects and configures an adapter. It is fixed for the whole loop;
// per-iteration inputs travel in Request.
type Config struct {
	Name   string   // claude, codex, gemini, opencode, aider, amp, cursor, command
	Cmd    string   // the shell command of the command agent (--agent-cmd)
	Bin    string   // --agent-bin: overrides the adapter's executable
	Model  string   // --model: passed to the CLI's model flag
	Args   []string // --agent-arg: appended to the command line
	Prices Prices   // user prices, overriding the built-in table
}

// Default is the agent used when none is named.
const Default = "claude"

type constructor func(Config) (Agent, error)

// adapters lists every agent architect knows, by name.
var adapters = map[string]constructor{
	"claude":   func(c Config) (Agent, error) { return &claude{newCLIAdapter(c, "claude")}, nil },
	"codex":    func(c Config) (Agent, error) { return &codex{newCLIAdapter(c, "codex")}, nil },
	"gemini":   func(c Config) (Agent, error) { return &gemini{newCLIAdapter(c, "gemini")}, nil },
	"opencode": func(c Config) (Agent, error) { return &opencode{newCLIAdapter(c, "opencode")}, nil },
	"aider":    func(c Config) (Agent, error) { return &aider{newCLIAdapter(c, "aider")}, nil },
	"amp":      func(c Config) (Agent, error) { return &amp{newCLIAdapter(c, "amp")}, nil },
	"cursor":   func(c Config) (Agent, error) { return &cursor{newCLIAdapter(c, "cursor")}, nil },
	"command":  newCommand,
}

// Names lists the agent names New accepts, sorted.
func Names() []string {
	names := make([]string, 0, len(adapters))
	for n := range adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Known reports whether name is an agent New accepts.
func Known(name string) bool {
	_, ok := adapters[name]
	return ok
}

// New returns the adapter c names.
func New(c Config) (Agent, error) {
	mk, ok := adapters[c.Name]
	if !ok {
		return nil, fmt.Errorf("unknown agent %q (known: %s)", c.Name, strings.Join(Names(), ", "))
	}
	return mk(c)
}

// PriceChecker is implemented by adapters whose cost comes from a price
// table: CheckPrices says which prices to add when the cost of a run could
// not be known, so that --max-cost can be refused up front.
type PriceChecker interface {
	CheckPrices() error
}
