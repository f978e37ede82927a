package testset

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkScan scans a workspace of 10,000 files, a tenth of them tests
// of the four languages (target: under 50 ms, the loop scans before each
// iteration's checks).
func BenchmarkScan(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{}
	goTest := "package p\n\n" + strings.Repeat("func TestX(t *testing.T) {\n\tif 1+1 != 2 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n\n", 20)
	src := strings.Repeat("// plain source\nfunc f() int { return 1 }\n", 100)
	for i := range 10_000 {
		d := fmt.Sprintf("pkg%03d", i/50)
		switch {
		case i%40 == 0:
			files[filepath.Join(d, fmt.Sprintf("f%d_test.go", i))] = goTest
		case i%40 == 1:
			files[filepath.Join(d, fmt.Sprintf("test_f%d.py", i))] = strings.Repeat("def test_x():\n    assert True\n\n", 20)
		case i%40 == 2:
			files[filepath.Join(d, fmt.Sprintf("f%d.test.ts", i))] = strings.Repeat("it('works', () => { expect(1).toBe(1) })\n", 20)
		case i%40 == 3:
			files[filepath.Join(d, fmt.Sprintf("f%d.rs", i))] = strings.Repeat("#[test]\nfn works() {}\n", 20)
		default:
			files[filepath.Join(d, fmt.Sprintf("f%d.go", i))] = src
		}
	}
	write(b, dir, files)
	b.ResetTimer()
	for b.Loop() {
		s, err := Scan(dir, nil)
		if err != nil || len(s) != 1000 {
			b.Fatal(err, len(s))
		}
	}
}
