// Command architect runs AI coding agents in a check-driven loop. See
// README.md and docs/ for usage.
package main

import (
	"os"

	"github.com/architect-dev/architect/cli"
	// Serves the sandbox's helper from its init, before the rest of
	// architect is initialised (each confined process is one such start).
	_ "github.com/architect-dev/architect/sandbox/helper/serve"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
