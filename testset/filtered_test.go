package testset

import (
	"testing"

	"github.com/matryer/is"
)

// Only a check whose runner's output reaches architect whole (or through
// tee and cat) is read as a list of the tests it ran.
func TestOutputFiltered(t *testing.T) {
	for _, c := range []struct {
		check    string
		filtered bool
	}{
		{"go test -v ./...", false},
		{"cd web && pytest -v", false},
		{"go test -v ./... 2>&1 | tee test.log", false},
		{"go test -v ./... | cat", false},
		{"go test -v ./... 2>&1 | tail -5", true},
		{"pytest -v | grep -v PASSED", true},
		{"go test -v ./... | tee log | tail -3", true},
		{"go test -json ./... |& tail -n 100", true},
		{"go test -v ./... | cat -s", true},
		{"go test -v ./... | { grep FAIL || true; }", true},
		{"if then (", true}, // unreadable: not trusted
	} {
		t.Run(c.check, func(t *testing.T) {
			is.New(t).Equal(OutputFiltered(c.check), c.filtered)
		})
	}
}
