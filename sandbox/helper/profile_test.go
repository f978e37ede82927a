package helper

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestProfile: the macOS profile allows writes only beneath the declared
// paths and the devices, and in strict mode reads too.
func TestProfile(t *testing.T) {
	is := is.New(t)
	p := profile(Policy{Write: []string{"/ws", `/odd "path"`}})
	is.True(strings.HasPrefix(p, "(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n"))
	is.True(strings.Contains(p, `(subpath "/ws")`))
	is.True(strings.Contains(p, `(subpath "/odd \"path\"")`)) // quoted
	is.True(strings.Contains(p, `(subpath "/dev/null")`))
	is.True(!strings.Contains(p, "file-read")) // workspace: reads are free
	s := profile(Policy{Write: []string{"/ws"}, Read: []string{"/usr"}, Strict: true})
	is.True(strings.Contains(s, "(deny file-read*)\n(allow file-read*\n"))
	is.True(strings.Contains(s[strings.Index(s, "(deny file-read*)"):], `(subpath "/usr")`))
	is.True(strings.Contains(s[strings.Index(s, "(deny file-read*)"):], `(subpath "/ws")`)) // what it writes, it reads
}
