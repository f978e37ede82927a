package proc

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/matryer/is"
)

func TestTailKeepsLastBytes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 64, 1000} {
		for _, maxWrite := range []int{1, 5, 63, 64, 65, 3000} {
			is := is.New(t)
			tail := NewTail(n)
			var all []byte
			for range 200 {
				p := make([]byte, rng.IntN(maxWrite+1))
				for i := range p {
					p[i] = byte('a' + rng.IntN(26))
				}
				all = append(all, p...)
				k, err := tail.Write(p)
				is.NoErr(err)
				is.Equal(k, len(p))
			}
			want := all[max(0, len(all)-n):]
			is.Equal(string(tail.Bytes()), string(want))
			is.Equal(tail.String(), string(want))
			is.Equal(tail.Total(), int64(len(all)))
			is.Equal(tail.Truncated(), len(all) > n)
		}
	}
}

func TestTailString(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	tail := NewTail(3)
	tail.Write([]byte("a€b")) // keeps the last 2 bytes of € and "b"
	is.Equal(tail.String(), "b")

	tail = NewTail(100)
	tail.Write([]byte("\x1b[31mred\x1b[0m\r\n"))
	is.Equal(tail.String(), "red\n")
}

func TestHead(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	h := NewHead(5)
	h.Write([]byte("hel"))
	h.Write([]byte("lo world"))
	is.Equal(h.String(), "hello")
	is.Equal(h.Total(), int64(11))
	is.True(h.Truncated())

	h = NewHead(4)
	h.Write([]byte("abc€")) // keeps the first byte of €
	is.Equal(len(h.Bytes()), 4)
	is.Equal(h.String(), "abc")

	h = NewHead(10)
	h.Write([]byte("short"))
	is.Equal(h.String(), "short")
	is.True(!h.Truncated())
}

// Text is what was kept as written (gitwt's diffs and git's errors): not
// cleaned, with a character cut in two dropped only at the cut.
func TestHeadText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    []string
		limit int
		want  string
	}{
		{[]string{"abc", "def"}, 10, "abcdef"},
		{[]string{"abc", "def"}, 4, "abcd"},
		{[]string{"ab", "日本"}, 4, "ab"},                      // 日 is cut: dropped
		{[]string{"ab", "日本"}, 5, "ab日"},                     // 本 is cut off whole
		{[]string{"ab", "日本"}, 6, "ab日"},                     // 本 is cut: dropped
		{[]string{"ab", "日本"}, 7, "ab日"},                     // 本 is cut: dropped
		{[]string{"ab", "日本"}, 8, "ab日本"},                    // nothing cut
		{[]string{"a\xff", "bc"}, 2, "a\xff"},                // invalid input is kept
		{[]string{"\x1b[31mred\r\n"}, 20, "\x1b[31mred\r\n"}, // not cleaned
		{[]string{"abc"}, 0, ""},
		{[]string{"abc"}, -1, ""},
	} {
		is := is.New(t)
		h := NewHead(tc.limit)
		var total int
		for _, s := range tc.in {
			n, err := h.Write([]byte(s))
			is.NoErr(err)
			is.Equal(n, len(s))
			total += len(s)
		}
		is.Equal(h.Text(), tc.want)
		is.Equal(h.Total(), int64(total))
		is.Equal(h.Truncated(), total > max(tc.limit, 0))
	}
}

// Exactly as much as is kept is not truncated.
func TestBufferBoundary(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	h, tail := NewHead(4), NewTail(4)
	h.Write([]byte("a€"))
	tail.Write([]byte("a€"))
	is.True(!h.Truncated())
	is.True(!tail.Truncated())
	is.Equal(h.Text(), "a€")
	is.Equal(tail.Text(), "a€")
	h.Write([]byte("b"))
	tail.Write([]byte("b"))
	is.True(h.Truncated())
	is.True(tail.Truncated())
	is.Equal(h.Text(), "a€")
	is.Equal(tail.Text(), "€b")
}

func TestTailText(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	tail := NewTail(4)
	for _, s := range []string{"ab", "cdefg", "h", "i", "j", "k", "l"} {
		n, err := tail.Write([]byte(s))
		is.NoErr(err)
		is.Equal(n, len(s))
	}
	is.Equal(tail.Text(), "ijkl")
	tail.Write([]byte("0123456789"))
	is.Equal(tail.Text(), "6789")
	tail.Write([]byte("日本")) // keeps the last byte of 日: dropped
	is.Equal(tail.Text(), "本")
	tail.Write([]byte("\x1b[1m")) // not cleaned
	is.Equal(tail.Text(), "\x1b[1m")
}

// 200 MB from a real process go through a Tail without the heap growing:
// memory does not depend on how much a process prints.
func TestTailMemoryFlat(t *testing.T) {
	is := is.New(t)
	const size = 200 << 20
	tail := NewTail(16 << 10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := Shell(t.Context(), "head -c 209715200 /dev/zero", Options{Stdout: tail, Stderr: tail})
	runtime.ReadMemStats(&after)
	is.Equal(r.ExitCode, 0)
	is.Equal(tail.Total(), int64(size))
	is.Equal(len(tail.Bytes()), 16<<10)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d KiB while copying %d MiB", allocated>>10, size>>20)
	is.True(allocated < 4<<20)                        // nothing in proportion to the output
	is.True(after.HeapAlloc < before.HeapAlloc+4<<20) // and nothing kept
}

func BenchmarkTail(b *testing.B) {
	tail := NewTail(16 << 10)
	p := bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB: the ring wraps
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		tail.Write(p)
	}
}
