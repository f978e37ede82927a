package changes

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"os"
)

// indexEntries returns a digest of what an index file says about each
// path (its name, mode, object, stage and flags) and nothing else: not the
// stat data git caches to spare reading files, not the extensions. Two
// index files with the same digest track and stage the same thing; `git
// status` rewriting the index with fresher stat data does not change it.
// ok is false for a file this reader does not know (a split index, an
// unknown version): the caller then assumes it changed. An absent file
// has the digest of no entries. oidLen is 20 (SHA-1) or 32 (SHA-256).
//
// The format is git's Documentation/gitformat-index.txt, versions 2 to 4.
func indexEntries(path string, oidLen int) (digest [sha256.Size]byte, ok bool, err error) {
	h := sha256.New()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		h.Sum(digest[:0])
		return digest, true, nil
	}
	if err != nil {
		return digest, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return digest, false, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	read := int64(12) // bytes consumed so far
	var head [12]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return digest, false, nil
	}
	version := binary.BigEndian.Uint32(head[4:8])
	if string(head[:4]) != "DIRC" || version < 2 || version > 4 {
		return digest, false, nil
	}
	count := binary.BigEndian.Uint32(head[8:12])
	x := &entryReader{r: r, version: version, fixed: 40 + oidLen + 2} // stat data, object, flags
	x.entry = make([]byte, x.fixed+2)
	for range count {
		flags, ext, ok := x.next()
		if !ok {
			return digest, false, nil
		}
		e := x.entry
		h.Write(e[24:28])                          // mode
		h.Write(e[40 : 40+oidLen])                 // object
		h.Write([]byte{byte(flags>>8) &^ 0x4f})    // assume-valid, stage
		h.Write([]byte{byte(ext >> 8), byte(ext)}) // skip-worktree, intent-to-add
		h.Write(x.name)
		h.Write([]byte{0})
	}
	read += x.read
	// Extensions, up to the trailing checksum. A split index keeps most
	// entries in a shared file ("link"): not read here.
	for info.Size()-read-int64(oidLen) >= 8 {
		var sig [8]byte
		if _, err := io.ReadFull(r, sig[:]); err != nil {
			return digest, false, nil
		}
		if bytes.Equal(sig[:4], []byte("link")) {
			return digest, false, nil
		}
		n := binary.BigEndian.Uint32(sig[4:])
		if _, err := r.Discard(int(n)); err != nil {
			return digest, false, nil
		}
		read += 8 + int64(n)
	}
	h.Sum(digest[:0])
	return digest, true, nil
}

// entryReader reads an index file's entries one by one.
type entryReader struct {
	r       *bufio.Reader
	version uint32
	fixed   int    // the length of an entry's fixed part
	entry   []byte // the entry read: its fixed part, then its extended flags
	name    []byte // its name
	prev    []byte // the name before it (version 4 names start from it)
	read    int64  // bytes consumed
}

// next reads the next entry into x.entry and x.name and returns its flags
// and extended flags; ok is false where the file is not one this reader
// knows.
func (x *entryReader) next() (flags, ext uint16, ok bool) {
	r, fixed := x.r, x.fixed
	if _, err := io.ReadFull(r, x.entry[:fixed]); err != nil {
		return 0, 0, false
	}
	flags = binary.BigEndian.Uint16(x.entry[fixed-2 : fixed])
	size := fixed
	if flags&0x4000 != 0 { // extended flags follow
		if x.version < 3 {
			return 0, 0, false
		}
		if _, err := io.ReadFull(r, x.entry[fixed:fixed+2]); err != nil {
			return 0, 0, false
		}
		ext = binary.BigEndian.Uint16(x.entry[fixed : fixed+2])
		size += 2
	}
	x.read += int64(size)
	if !x.readName(size) {
		return 0, 0, false
	}
	x.prev = append(x.prev[:0], x.name...)
	return flags, ext, true
}

// readName reads the name of an entry whose fixed part and flags are size
// bytes long, and the padding after it.
func (x *entryReader) readName(size int) bool {
	r := x.r
	if x.version == 4 {
		strip, n, err := readVarint(r)
		if err != nil || strip > uint64(len(x.prev)) {
			return false
		}
		suffix, err := r.ReadBytes(0)
		if err != nil {
			return false
		}
		x.read += int64(n + len(suffix))
		x.name = append(append(x.name[:0], x.prev[:len(x.prev)-int(strip)]...), suffix[:len(suffix)-1]...)
		return true
	}
	raw, err := r.ReadBytes(0)
	if err != nil {
		return false
	}
	x.name = append(x.name[:0], raw[:len(raw)-1]...)
	// Padded with NULs to a multiple of 8 bytes, the name's own NUL
	// included.
	pad := (size+len(raw)+7)&^7 - size - len(raw)
	if _, err := r.Discard(pad); err != nil {
		return false
	}
	x.read += int64(len(raw) + pad)
	return true
}

// entriesEnd returns where an index file's entries end and its extensions
// start; ok is false for a file this reader does not know. The format is
// git's Documentation/gitformat-index.txt, versions 2 to 4.
func entriesEnd(data []byte, oidLen int) (int, bool) {
	return eachEntry(data, oidLen, nil)
}

// eachEntry calls fn (when not nil) with the offset and the name of each
// entry of an index file, in order, and returns where the entries end, as
// entriesEnd. name is only valid during the call.
func eachEntry(data []byte, oidLen int, fn func(off int, name []byte)) (int, bool) {
	if len(data) < 12+oidLen || string(data[:4]) != "DIRC" {
		return 0, false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return 0, false
	}
	count := binary.BigEndian.Uint32(data[8:12])
	end := len(data) - oidLen
	fixed := 40 + oidLen + 2 // stat data, object, flags
	off := 12
	var name []byte // version 4: the previous name, which the next one starts from
	for range count {
		if off+fixed > end {
			return 0, false
		}
		size := fixed
		if binary.BigEndian.Uint16(data[off+fixed-2:])&0x4000 != 0 { // extended flags follow
			if version < 3 {
				return 0, false
			}
			size += 2
		}
		start := off
		off += size
		strip := uint64(0)
		if version == 4 { // how much of the previous name to drop, then the rest
			c := data[off]
			strip = uint64(c & 127)
			for off++; c&128 != 0; off++ {
				if off >= end || strip>>50 != 0 {
					return 0, false
				}
				c = data[off]
				strip = (strip+1)<<7 + uint64(c&127)
			}
		}
		if off > end {
			return 0, false
		}
		nul := bytes.IndexByte(data[off:end], 0)
		if nul < 0 {
			return 0, false
		}
		if version == 4 {
			if strip > uint64(len(name)) {
				return 0, false
			}
			name = append(name[:len(name)-int(strip)], data[off:off+nul]...)
			off += nul + 1
		} else {
			name = data[off : off+nul]
			// Padded with NULs to a multiple of 8 bytes, at least one.
			off = start + (size+nul+8)&^7
		}
		if fn != nil {
			fn(start, name)
		}
	}
	if off > end {
		return 0, false
	}
	return off, true
}

// readVarint reads git's offset encoding of a number (varint.c) and
// says how many bytes it took.
func readVarint(r *bufio.Reader) (uint64, int, error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	val, n := uint64(c&127), 1
	for c&128 != 0 {
		val++
		if val == 0 || val>>57 != 0 {
			return 0, n, errors.New("varint overflow")
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, n, err
		}
		val, n = val<<7+uint64(c&127), n+1
	}
	return val, n, nil
}
