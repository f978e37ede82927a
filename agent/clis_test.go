package agent

import (
	"testing"

	"github.com/matryer/is"
)

// The table names the executable each adapter really runs, and every CLI
// agent is in it.
func TestCLIsMatchAdapters(t *testing.T) {
	is := is.New(t)
	for _, name := range Names() {
		a, err := New(Config{Name: name, Cmd: "true"})
		is.NoErr(err)
		c, ok := CLIFor(name)
		if name == "command" {
			is.True(!ok)
			is.Equal(Binary(a), "")
			continue
		}
		is.True(ok) // every CLI agent has an entry
		is.Equal(Binary(a), c.Bin)
		is.True(c.Install != "")
		a, err = New(Config{Name: name, Bin: "/opt/x/" + name})
		is.NoErr(err)
		is.Equal(Binary(a), "/opt/x/"+name) // --agent-bin wins
	}
	is.Equal(len(CLIs()), len(Names())-1)
}
