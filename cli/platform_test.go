package cli

import (
	"bytes"
	"testing"

	"github.com/matryer/is"
)

// On Windows, loop and batch refuse with exit 2, an error and a hint that
// points to WSL; elsewhere they go on.
func TestRefusePlatform(t *testing.T) {
	for _, tc := range []struct {
		goos    string
		refused bool
	}{
		{"windows", true},
		{"linux", false},
		{"darwin", false},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			is := is.New(t)
			err := refusePlatform(tc.goos)
			is.Equal(err != nil, tc.refused)
			if !tc.refused {
				return
			}
			var stderr bytes.Buffer
			e := &env{stderr: &stderr}
			is.Equal(exitCode(e, err), ExitUsage)
			is.True(bytes.HasPrefix(stderr.Bytes(), []byte("architect: error: architect does not run loops or batches on Windows")))
			is.True(bytes.Contains(stderr.Bytes(), []byte("\narchitect: hint: run architect in WSL")))
		})
	}
}
