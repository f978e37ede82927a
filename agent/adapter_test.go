package agent

import (
	"testing"

	"github.com/matryer/is"
)

// adapterOf returns the configuration every CLI adapter embeds.
func adapterOf(a Agent) cliAdapter {
	switch x := a.(type) {
	case *claude:
		return x.cliAdapter
	case *codex:
		return x.cliAdapter
	case *gemini:
		return x.cliAdapter
	case *opencode:
		return x.cliAdapter
	case *aider:
		return x.cliAdapter
	case *amp:
		return x.cliAdapter
	case *cursor:
		return x.cliAdapter
	}
	return cliAdapter{}
}

func TestNewAdapters(t *testing.T) {
	for name, bin := range map[string]string{"claude": "claude", "codex": "codex", "gemini": "gemini",
		"opencode": "opencode", "aider": "aider", "amp": "amp", "cursor": "cursor-agent"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a, err := New(Config{Name: name})
			is.NoErr(err)
			is.Equal(a.Name(), name)
			is.Equal(adapterOf(a).bin, bin) // the CLI's usual executable
			is.True(adapterOf(a).now != nil)

			args := []string{"--x"}
			a, err = New(Config{Name: name, Bin: "/opt/" + name, Model: "m1", Args: args, Prices: Prices{"m1": {Input: 1}}})
			is.NoErr(err)
			c := adapterOf(a)
			is.Equal(c.bin, "/opt/"+name) // --agent-bin
			is.Equal(c.model, "m1")       // --model
			is.Equal(c.args, []string{"--x"})
			is.Equal(c.prices["m1"].Input, 1.0)
			args[0] = "changed"
			is.Equal(c.args, []string{"--x"}) // the adapter keeps its own copy
		})
	}
}
