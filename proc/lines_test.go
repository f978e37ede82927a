package proc

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestLineWriter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		max    int
		writes []string
		want   []string // after Flush
	}{
		{"split across writes", 100, []string{"a\nb", "c\n", "d"}, []string{"a", "bc", "d"}},
		{"crlf", 100, []string{"a\r\nb\r\n"}, []string{"a", "b"}},
		{"empty lines", 100, []string{"\n\nx\n"}, []string{"", "", "x"}},
		{"nothing to flush", 100, []string{"x\n"}, []string{"x"}},
		{"exactly max", 3, []string{"abc\n"}, []string{"abc"}},
		{"too long", 4, []string{"abcdefgh\nxy\n"}, []string{"abcd", "xy"}},
		{"too long across writes", 4, []string{"ab", "cdef", "gh\nz\n"}, []string{"abcd", "z"}},
		{"too long, unterminated", 4, []string{"abcdefgh"}, []string{"abcd"}},
		{"cut inside a character", 4, []string{"ab€\n"}, []string{"ab"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			var got []string
			w := NewLineWriter(tc.max, func(line []byte) { got = append(got, string(line)) })
			for _, s := range tc.writes {
				n, err := w.Write([]byte(s))
				is.NoErr(err)
				is.Equal(n, len(s))
			}
			w.Flush()
			is.Equal(got, tc.want)
		})
	}
}

// TestLineWriterKeepTail: a line past the maximum reaches the long-line
// function as its head and its tail, whatever the chunks; other lines
// reach the line function as before.
func TestLineWriterKeepTail(t *testing.T) {
	is := is.New(t)
	long := strings.Repeat("a", 50) + strings.Repeat("m", 500) + "é" + strings.Repeat("z", 30)
	in := "short\n" + long + "\r\nnext\nlast"
	for size := 1; size <= len(in); size += 7 {
		var lines []string
		var heads, tails []string
		w := NewLineWriter(40, func(l []byte) { lines = append(lines, string(l)) })
		w.KeepTail(32, func(h, tl []byte) { heads, tails = append(heads, string(h)), append(tails, string(tl)) })
		for p := in; len(p) > 0; {
			n := min(size, len(p))
			w.Write([]byte(p[:n]))
			p = p[n:]
		}
		w.Flush()
		is.Equal(lines, []string{"short", "next", "last"})
		is.Equal(heads, []string{strings.Repeat("a", 40)})
		is.Equal(tails, []string{strings.Repeat("z", 30)}) // 32 bytes back falls inside "é": from the next character
	}
}
