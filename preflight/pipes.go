package preflight

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// EarlyReaders lists the programs of a check that read a pipeline's
// output and may stop before it ends: `head`, `grep -q`, `grep -m N`.
// With pipefail (checks always have it) the stage writing into one is
// then killed by SIGPIPE (exit status 141) and the check fails, or not,
// depending on how much the stage printed and how fast: a verdict that
// changes with the output's size. A check that turns pipefail off (set +o
// pipefail) is left alone, as is one the shell parser cannot read.
func EarlyReaders(script string) []string {
	if strings.Contains(script, "+o pipefail") {
		return nil
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		b, ok := n.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) || b.Y == nil {
			return true
		}
		// The right side of a pipe reads it; a|b|c nests as (a|b)|c.
		call, ok := b.Y.Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := literals(call.Args)
		name := path.Base(words[0])
		if early(name, words[1:]) {
			shown := name
			if name != "head" {
				shown = strings.Join(words, " ")
			}
			if !slices.Contains(out, shown) {
				out = append(out, shown)
			}
		}
		return true
	})
	return out
}

// early reports whether the program name with args stops reading its
// input before the end.
func early(name string, args []string) bool {
	switch name {
	case "head":
		return true
	case "grep", "egrep", "fgrep", "rg":
		for _, a := range args {
			if a == "--" {
				return false
			}
			if a == "--quiet" || a == "--silent" || strings.HasPrefix(a, "--max-count") ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "qm") {
				return true
			}
		}
	}
	return false
}
