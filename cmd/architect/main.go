// Command architect runs AI coding agents in a check-driven loop. See the
// README for usage.
package main

import (
	"os"

	"github.com/architect-dev/architect/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
