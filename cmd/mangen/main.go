// Command mangen writes architect's man pages, one per command
// (architect.1, architect-loop.1, ...), from the same command tree that
// `architect help` prints, so the two cannot disagree:
//
//	go run ./cmd/mangen -o man      # then: man -l man/architect-loop.1
//
// It is a build step rather than an `architect man` command so that the
// architect binary does not carry the roff generator.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/architect-dev/architect/cli"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

func main() {
	out := flag.String("o", "man", "the `folder` to write the pages in")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "mangen:", err)
		os.Exit(1)
	}
}

func generate(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := cli.Command()
	root.InitDefaultHelpCmd()
	escapeTree(root)
	return doc.GenManTree(root, &doc.GenManHeader{Title: "ARCHITECT", Section: "1", Source: "architect", Manual: "architect manual"}, dir)
}

// escapeTree escapes the Markdown that cobra's man generator would
// otherwise interpret in the help texts (ralph_loop, ARCHITECT_*,
// <promise>TAG</promise>); examples are code blocks and stay as they are.
func escapeTree(c *cobra.Command) {
	c.Short, c.Long = escape(c.Short), escape(c.Long)
	c.Flags().VisitAll(func(f *pflag.Flag) { f.Usage = escape(f.Usage) })
	for _, sub := range c.Commands() {
		escapeTree(sub)
	}
}

var markdown = strings.NewReplacer(`\`, `\\`, "_", `\_`, "*", `\*`, "<", `\<`, ">", `\>`, "[", `\[`, "]", `\]`, "#", `\#`)

func escape(s string) string { return markdown.Replace(s) }
