//go:build linux

package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// GGUF is what checkGGUF read from a model file: its metadata, its tensor
// table and the figures derived from them.
type GGUF struct {
	Version    uint32
	Meta       map[string]any // scalar values; arrays are kept as their length
	Tensors    int
	Params     int64 // elements in all tensors
	DataStart  int64 // where tensor data begins (after the aligned header)
	DataEnd    int64 // where the last tensor ends
	FileSize   int64
	Alignment  int64
	TypeCounts map[string]int // tensors per ggml type name
}

// ggmlTypes gives, per ggml type id, its name, elements per block and bytes
// per block (ggml.c's type_traits), for the types GGUF files use.
var ggmlTypes = map[uint32]struct {
	name        string
	block, size int64
}{
	0: {"F32", 1, 4}, 1: {"F16", 1, 2}, 2: {"Q4_0", 32, 18}, 3: {"Q4_1", 32, 20},
	6: {"Q5_0", 32, 22}, 7: {"Q5_1", 32, 24}, 8: {"Q8_0", 32, 34}, 9: {"Q8_1", 32, 36},
	10: {"Q2_K", 256, 84}, 11: {"Q3_K", 256, 110}, 12: {"Q4_K", 256, 144}, 13: {"Q5_K", 256, 176},
	14: {"Q6_K", 256, 210}, 15: {"Q8_K", 256, 292}, 24: {"I8", 1, 1}, 25: {"I16", 1, 2},
	26: {"I32", 1, 4}, 27: {"I64", 1, 8}, 28: {"F64", 1, 8}, 30: {"BF16", 1, 2},
}

// ggufReader reads GGUF's little-endian values, bounding every length by
// what the file can hold so that a corrupt header cannot make it allocate
// without limit.
type ggufReader struct {
	r    *bufio.Reader
	n    int64 // bytes read
	size int64
	err  error
}

func (g *ggufReader) read(p []byte) {
	if g.err != nil {
		return
	}
	var k int
	k, g.err = io.ReadFull(g.r, p)
	g.n += int64(k)
}

func (g *ggufReader) u32() uint32 {
	var b [4]byte
	g.read(b[:])
	return binary.LittleEndian.Uint32(b[:])
}
func (g *ggufReader) u64() uint64 {
	var b [8]byte
	g.read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

func (g *ggufReader) str() string {
	n := g.u64()
	if g.err == nil && n > uint64(g.size-g.n) {
		g.err = fmt.Errorf("string of %d bytes at offset %d runs past the end of the file", n, g.n)
	}
	if g.err != nil {
		return ""
	}
	b := make([]byte, n)
	g.read(b)
	return string(b)
}

// value reads one metadata value of GGUF type t.
func (g *ggufReader) value(t uint32, depth int) any {
	switch t {
	case 0, 1: // uint8, int8
		var b [1]byte
		g.read(b[:])
		if t == 1 {
			return int64(int8(b[0]))
		}
		return int64(b[0])
	case 2, 3: // uint16, int16
		var b [2]byte
		g.read(b[:])
		v := binary.LittleEndian.Uint16(b[:])
		if t == 3 {
			return int64(int16(v))
		}
		return int64(v)
	case 4:
		return int64(g.u32())
	case 5:
		return int64(int32(g.u32()))
	case 6:
		return float64(math.Float32frombits(g.u32()))
	case 7:
		var b [1]byte
		g.read(b[:])
		return b[0] != 0
	case 8:
		return g.str()
	case 9: // array: element type, count, elements
		et, n := g.u32(), g.u64()
		if depth > 2 || (g.err == nil && n > uint64(g.size-g.n)) {
			g.err = fmt.Errorf("array of %d elements at offset %d cannot fit in the file", n, g.n)
			return nil
		}
		for i := uint64(0); i < n && g.err == nil; i++ {
			g.value(et, depth+1)
		}
		return fmt.Sprintf("[%d]", n)
	case 10:
		return int64(g.u64())
	case 11:
		return int64(g.u64())
	case 12:
		return math.Float64frombits(g.u64())
	}
	g.err = fmt.Errorf("unknown metadata type %d at offset %d", t, g.n)
	return nil
}

// checkGGUF reads path's GGUF header, metadata and tensor table and checks
// that the table is consistent with the file: every tensor of a known type,
// its data aligned, inside the file, not overlapping the next, and the last
// one ending where the file ends. A truncated, padded or mis-assembled file
// fails here before any inference engine loads it.
func checkGGUF(path string) (*GGUF, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	g := &ggufReader{r: bufio.NewReaderSize(f, 1<<20), size: st.Size()}
	out, nt, err := g.header()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tensors := g.tensors(nt, out)
	if g.err != nil {
		if errors.Is(g.err, io.ErrUnexpectedEOF) || errors.Is(g.err, io.EOF) {
			return nil, fmt.Errorf("%s: the header is cut short at byte %d", path, g.n)
		}
		return nil, fmt.Errorf("%s: %w", path, g.err)
	}
	if err := out.place(g.n, tensors); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ggufTensor is one entry of the tensor table: where its data begins,
// relative to the data section, and how many bytes it takes.
type ggufTensor struct {
	name        string
	off, nbytes int64
}

// header reads the magic, the version and the metadata, and returns the
// number of tensors the table that follows holds. A read error is left in
// g.err for the caller.
func (g *ggufReader) header() (*GGUF, uint64, error) {
	var magic [4]byte
	g.read(magic[:])
	if g.err == nil && string(magic[:]) != "GGUF" {
		return nil, 0, fmt.Errorf("not a GGUF file (magic %q)", magic[:])
	}
	out := &GGUF{Version: g.u32(), Meta: map[string]any{}, FileSize: g.size, TypeCounts: map[string]int{}}
	if g.err == nil && (out.Version < 2 || out.Version > 3) {
		return nil, 0, fmt.Errorf("GGUF version %d (want 2 or 3)", out.Version)
	}
	nt, nkv := g.u64(), g.u64()
	if g.err == nil && (nt > 1<<20 || nkv > 1<<20) {
		return nil, 0, fmt.Errorf("%d tensors and %d metadata keys: not a sane header", nt, nkv)
	}
	for i := uint64(0); i < nkv && g.err == nil; i++ {
		k := g.str()
		out.Meta[k] = g.value(g.u32(), 0)
	}
	return out, nt, nil
}

// tensors reads the n entries of the tensor table, counting their
// elements and types into out; it stops at the first bad entry, whose
// problem it leaves in g.err.
func (g *ggufReader) tensors(n uint64, out *GGUF) []ggufTensor {
	tensors := make([]ggufTensor, 0, n)
	for i := uint64(0); i < n && g.err == nil; i++ {
		t, ok := g.tensor(out)
		if !ok {
			break
		}
		tensors = append(tensors, t)
	}
	out.Tensors = len(tensors)
	return tensors
}

// tensor reads one entry of the tensor table: name, dimensions, ggml type
// and data offset; false when the entry is bad or cut short (see g.err).
func (g *ggufReader) tensor(out *GGUF) (ggufTensor, bool) {
	name := g.str()
	nd := g.u32()
	if nd == 0 || nd > 4 {
		g.err = fmt.Errorf("tensor %q has %d dimensions", name, nd)
		return ggufTensor{}, false
	}
	elems := int64(1)
	for range nd {
		d := g.u64()
		if d == 0 || d > 1<<40 || elems > math.MaxInt64/int64(d) {
			g.err = fmt.Errorf("tensor %q has a dimension of %d", name, d)
		}
		elems *= int64(d)
	}
	typ := g.u32()
	off := int64(g.u64())
	tt, ok := ggmlTypes[typ]
	if g.err == nil && !ok {
		g.err = fmt.Errorf("tensor %q has ggml type %d, unknown here", name, typ)
	}
	if g.err != nil {
		return ggufTensor{}, false
	}
	if elems%tt.block != 0 {
		g.err = fmt.Errorf("tensor %q: %d elements is not a whole number of %s blocks", name, elems, tt.name)
		return ggufTensor{}, false
	}
	out.Params += elems
	out.TypeCounts[tt.name]++
	return ggufTensor{name, off, elems / tt.block * tt.size}, true
}

// place lays the tensors out after the header, which ends at byte
// headerEnd: the data aligned, each tensor after the one before it with
// no gap of an alignment or more, and the last one ending where the file
// ends.
func (out *GGUF) place(headerEnd int64, tensors []ggufTensor) error {
	out.Alignment = 32
	if a, ok := out.Meta["general.alignment"].(int64); ok {
		if a <= 0 || a&(a-1) != 0 {
			return fmt.Errorf("general.alignment %d is not a power of two", a)
		}
		out.Alignment = a
	}
	out.DataStart = (headerEnd + out.Alignment - 1) / out.Alignment * out.Alignment
	end := int64(0)
	for i, t := range tensors {
		if t.off%out.Alignment != 0 {
			return fmt.Errorf("tensor %q at data offset %d is not aligned to %d", t.name, t.off, out.Alignment)
		}
		if t.off < end {
			return fmt.Errorf("tensor %q at data offset %d overlaps the tensor before it (ends at %d)", t.name, t.off, end)
		}
		if i > 0 && t.off-end >= out.Alignment {
			return fmt.Errorf("a gap of %d bytes before tensor %q", t.off-end, t.name)
		}
		end = t.off + t.nbytes
	}
	out.DataEnd = out.DataStart + end
	if out.DataEnd > out.FileSize {
		return fmt.Errorf("the tensors end at byte %d but the file has %d: it is cut short", out.DataEnd, out.FileSize)
	}
	if pad := out.FileSize - out.DataEnd; pad >= out.Alignment {
		return fmt.Errorf("%d bytes follow the last tensor: the file holds more than the model", pad)
	}
	return nil
}
