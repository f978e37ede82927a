package agent

import (
	"slices"
	"time"
)

// cliAdapter is what every CLI adapter is configured with; each adapter
// embeds it.
type cliAdapter struct {
	bin    string   // the executable: Config.Bin or the CLI's usual name
	model  string   // Config.Model (Amp: its mode)
	args   []string // Config.Args, appended to the command line
	prices Prices
	now    func() time.Time
}

func newCLIAdapter(c Config, defaultBin string) cliAdapter {
	bin := c.Bin
	if bin == "" {
		bin = defaultBin
	}
	return cliAdapter{bin: bin, model: c.Model, args: slices.Clone(c.Args), prices: c.Prices, now: time.Now}
}
