package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with testdata/name, after writing it there when
// update is set (each package's -update flag). A difference shows both
// whole, unless they are longer than a screen, when only their sizes are.
func Golden(t *testing.T, name, got string, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case got == string(want):
	case len(got)+len(want) > 8000:
		t.Errorf("%s differs from what it was (%d bytes against %d)", name, len(got), len(want))
	default:
		t.Errorf("%s differs from what it was:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
