package proc

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

func TestLineSampler(t *testing.T) {
	is := is.New(t)
	var got []string
	s := NewLineSampler(time.Hour, 5, func(l []byte) { got = append(got, string(l)) })
	s.Write([]byte("partial"))
	is.Equal(len(got), 0) // no complete line yet
	s.Write([]byte("one\ntwo\n\n  \n"))
	is.Equal(got, []string{"two"}) // the last non-blank complete line
	s.Write([]byte("three\n"))
	is.Equal(got, []string{"two"}) // within the interval
	s = NewLineSampler(0, 5, func(l []byte) { got = append(got, string(l)) })
	s.Write([]byte("x\n" + strings.Repeat("é", 10) + "\n"))
	is.Equal(got[len(got)-1], "éé") // cut at a character boundary
}
