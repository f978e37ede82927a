package config

import (
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/spf13/pflag"
)

// A flag's number reaches the door unchecked (pflag parses NaN and Inf as
// numbers): the door refuses it, so that a NaN budget, which no spending
// ever reaches, cannot start a run.
func TestDoorRefusesNaNFromAFlag(t *testing.T) {
	for _, v := range []string{"NaN", "-Inf"} {
		t.Run(v, func(t *testing.T) {
			is := is.New(t)
			fs := pflag.NewFlagSet("loop", pflag.ContinueOnError)
			var flagged Config
			fs.Float64Var(&flagged.MaxCost, "max-cost", 0, "")
			is.NoErr(fs.Parse([]string{"--max-cost", v}))
			_, _, _, err := LoadSources("", "the task", envOf(map[string]string{"ARCHITECT_AGENT_CMD": "true"}), fs, &flagged)
			is.True(err != nil) // a value that is not a number was let through
			is.True(strings.Contains(err.Error(), "--max-cost"))
			is.True(strings.Contains(err.Error(), v+" is not a number"))
		})
	}
}
