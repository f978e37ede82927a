package testset

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// OutputFiltered reports whether what a check prints may be only part of
// what its test runner printed: the runner's output goes through a pipe
// into a filter (`go test -v ./... 2>&1 | tail -5`, `| grep FAIL`), not
// only into tee or cat. Such an output names some of the tests that ran,
// not all (which ones depends on what the tail kept), so it is no witness:
// a test it no longer names may well have run. A check the shell parser
// cannot read counts as filtered.
func OutputFiltered(command string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return true
	}
	filtered := false
	syntax.Walk(f, func(n syntax.Node) bool {
		b, ok := n.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) {
			return true
		}
		if !passesAll(b.Y) {
			filtered = true
		}
		return !filtered
	})
	return filtered
}

// passesAll reports whether a pipeline's stage prints all it reads: tee
// and cat (without options that change lines).
func passesAll(s *syntax.Stmt) bool {
	if s == nil {
		return false
	}
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		return passesAll(b.X) && passesAll(b.Y)
	}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	name := path.Base(call.Args[0].Lit())
	if name != "tee" && name != "cat" {
		return false
	}
	for _, a := range call.Args[1:] {
		if l := a.Lit(); name == "cat" && (l == "" || strings.HasPrefix(l, "-")) {
			return false // cat -s squeezes, cat FILE prints another file
		}
	}
	return true
}
