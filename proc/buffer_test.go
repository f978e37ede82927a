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
