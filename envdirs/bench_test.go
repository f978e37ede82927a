package envdirs

import (
	"fmt"
	"testing"
)

// BenchmarkTake is the fingerprint of a node_modules of 10,000 files, 200
// to a package: taken at the start of a run, and again at the last look.
func BenchmarkTake(b *testing.B) {
	dir := b.TempDir()
	for k := range 10000 {
		writeFile(b, dir, fmt.Sprintf("node_modules/pkg%03d/f%05d.js", k/200, k), "module.exports = 1;\n")
	}
	for b.Loop() {
		if _, err := Take(dir, "node_modules"); err != nil {
			b.Fatal(err)
		}
	}
}
