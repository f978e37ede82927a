package gitwt

import (
	"testing"

	"github.com/matryer/is"
)

func TestHeadBuffer(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		in    []string
		limit int
		want  string
	}{
		{[]string{"abc", "def"}, 10, "abcdef"},
		{[]string{"abc", "def"}, 4, "abcd"},
		{[]string{"ab", "日本"}, 4, "ab"},       // 日 is cut: dropped
		{[]string{"ab", "日本"}, 5, "ab日"},      // 本 is cut off whole
		{[]string{"ab", "日本"}, 6, "ab日"},      // 本 is cut: dropped
		{[]string{"ab", "日本"}, 7, "ab日"},      // 本 is cut: dropped
		{[]string{"ab", "日本"}, 8, "ab日本"},     // nothing cut
		{[]string{"a\xff", "bc"}, 2, "a\xff"}, // invalid input is kept
		{[]string{"abc"}, 0, ""},
	} {
		h := &headBuffer{limit: tc.limit}
		var total int
		for _, s := range tc.in {
			n, err := h.Write([]byte(s))
			is.NoErr(err)
			is.Equal(n, len(s))
			total += len(s)
		}
		is.Equal(h.String(), tc.want)
		is.Equal(h.total, int64(total))
	}
}

func TestTailBuffer(t *testing.T) {
	is := is.New(t)
	tb := &tailBuffer{limit: 4}
	for _, s := range []string{"ab", "cdefg", "h", "i", "j", "k", "l"} {
		n, err := tb.Write([]byte(s))
		is.NoErr(err)
		is.Equal(n, len(s))
	}
	is.Equal(tb.String(), "ijkl")
	tb.Write([]byte("0123456789"))
	is.Equal(tb.String(), "6789")
}
