package cli

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkVersion is the command line's own start-up: building the command
// tree, parsing and printing the version (the process's start is not in
// it: bench/ measures that).
func BenchmarkVersion(b *testing.B) {
	for b.Loop() {
		if Main([]string{"--version"}, strings.NewReader(""), io.Discard, io.Discard) != 0 {
			b.Fatal("exit status")
		}
	}
}
