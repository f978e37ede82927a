// Package serve makes the program that imports it the sandbox's helper
// when started as one (`PROGRAM __sandbox POLICY PATH ARG0 [ARG...]`):
// its init runs helper.Main, which confines the process and execs the
// program, so that nothing else of the importer runs. architect's main
// imports it for that alone. Go initialises a package as soon as what it
// imports is, in the order of import paths: this one, importing only
// helper and the standard library, comes before the heavier packages of
// the rest of architect (markdown, YAML, the terminal view), whose
// initialisation a confined process would otherwise pay for at every
// start.
package serve

import (
	"os"

	"github.com/architect-dev/architect/sandbox/helper"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == helper.Command {
		os.Exit(helper.Main(os.Args[2:]))
	}
}
