package agent

import (
	"slices"
	"time"
	// Usage-limit messages name their reset time in a zone ("resets 5pm
	// (Europe/Paris)"): embed the zone database so parsing them does not
	// depend on the machine having one.
	_ "time/tzdata"
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
