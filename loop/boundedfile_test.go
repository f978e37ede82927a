package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// A stream past its limit keeps its head and tail, each whole lines, with
// the cut said between them; every line is cleaned, a secret masked even
// when it came in pieces.
func TestKeepFileBounded(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "out")
	clean := func(s string) string { return strings.ReplaceAll(s, "s3cret", "***") }
	k, err := newKeepFile(path, 200, clean)
	is.NoErr(err)
	k.Write([]byte("token s3"))
	k.Write([]byte("cret here\n"))
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(k, "line %04d\n", i)
	}
	k.Write([]byte("last s3cret"))
	is.NoErr(k.Close())
	data, err := os.ReadFile(path)
	is.NoErr(err)
	got := string(data)
	is.True(strings.HasPrefix(got, "token *** here\nline 0000\n"))
	is.True(!strings.Contains(got, "s3cret"))
	is.True(strings.Contains(got, "bytes of this output are not kept here (transcript_limit: the first and the last 100 bytes are)"))
	is.True(strings.HasSuffix(got, "line 0999\nlast ***"))
	head, _, _ := strings.Cut(got, "\n… architect:")
	is.True(len(head) <= 100)
	_, tail, _ := strings.Cut(got, "are) …\n\n")
	is.True(strings.HasPrefix(tail, "line 09")) // a whole line
	is.True(len(tail) <= 100)
}

// Under the limit, the stream is kept whole.
func TestKeepFileWhole(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "out")
	k, err := newKeepFile(path, 1<<20, func(s string) string { return s })
	is.NoErr(err)
	want := strings.Repeat("abc\n", 1000) + "no newline"
	k.Write([]byte(want))
	is.NoErr(k.Close())
	data, _ := os.ReadFile(path)
	is.Equal(string(data), want)
}

// A stream that prints nothing leaves no file, and never the file an
// earlier run left at its path; a file that cannot be created is reported
// by Close, while Write still takes the stream (it is never cut short).
func TestKeepFileCreatedWithTheFirstByte(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	is.NoErr(os.WriteFile(path, []byte("an earlier run's\n"), 0o600))
	k, err := newKeepFile(path, 1<<20, func(s string) string { return s })
	is.NoErr(err)
	_, err = os.Stat(path)
	is.True(os.IsNotExist(err)) // the earlier file is gone at once
	n, err := k.Write(nil)
	is.Equal(n, 0)
	is.NoErr(err)
	is.NoErr(k.Close())
	_, err = os.Stat(path)
	is.True(os.IsNotExist(err)) // nothing printed: no file

	k, err = newKeepFile(path, 1<<20, func(s string) string { return s })
	is.NoErr(err)
	k.Write([]byte("x"))
	is.NoErr(k.Close())
	data, err := os.ReadFile(path)
	is.NoErr(err)
	is.Equal(string(data), "x")

	k, err = newKeepFile(filepath.Join(dir, "missing", "out"), 1<<20, func(s string) string { return s })
	is.NoErr(err)
	n, err = k.Write([]byte("line\n"))
	is.Equal(n, 5)
	is.NoErr(err)
	is.True(k.Close() != nil) // the folder is not there: said at Close
}

// A line in the kept tail longer than the reader's buffer (64 KiB) is kept
// whole, not cut at the buffer's end with the rest of the tail lost.
func TestKeepFileLongLineInTail(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "out")
	k, err := newKeepFile(path, 600<<10, func(s string) string { return s })
	is.NoErr(err)
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(k, "filler line %05d\n", i) // 360 KB: past the limit
	}
	long := "LONG" + strings.Repeat("x", 150<<10) + "END-OF-LONG-LINE\n"
	k.Write([]byte(long))
	k.Write([]byte("last line\n"))
	is.NoErr(k.Close())
	data, err := os.ReadFile(path)
	is.NoErr(err)
	got := string(data)
	is.True(strings.Contains(got, "bytes of this output are not kept here"))
	is.True(strings.Contains(got, long))                // the long line, whole
	is.True(strings.HasSuffix(got, long+"last line\n")) // and what came after it
}
