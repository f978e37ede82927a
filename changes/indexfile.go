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
	fixed := 40 + oidLen + 2 // stat data, object, flags
	entry := make([]byte, fixed+2)
	var name, prev []byte
	for range count {
		if _, err := io.ReadFull(r, entry[:fixed]); err != nil {
			return digest, false, nil
		}
		flags := binary.BigEndian.Uint16(entry[fixed-2 : fixed])
		size := fixed
		var ext uint16
		if flags&0x4000 != 0 { // extended flags follow
			if version < 3 {
				return digest, false, nil
			}
			if _, err := io.ReadFull(r, entry[fixed:fixed+2]); err != nil {
				return digest, false, nil
			}
			ext = binary.BigEndian.Uint16(entry[fixed : fixed+2])
			size += 2
		}
		read += int64(size)
		if version == 4 {
			strip, n, err := readVarint(r)
			if err != nil || strip > uint64(len(prev)) {
				return digest, false, nil
			}
			suffix, err := r.ReadBytes(0)
			if err != nil {
				return digest, false, nil
			}
			read += int64(n + len(suffix))
			name = append(append(name[:0], prev[:len(prev)-int(strip)]...), suffix[:len(suffix)-1]...)
		} else {
			raw, err := r.ReadBytes(0)
			if err != nil {
				return digest, false, nil
			}
			name = append(name[:0], raw[:len(raw)-1]...)
			// Padded with NULs to a multiple of 8 bytes, the name's own
			// NUL included.
			pad := (size+len(raw)+7)&^7 - size - len(raw)
			if _, err := r.Discard(pad); err != nil {
				return digest, false, nil
			}
			read += int64(len(raw) + pad)
		}
		prev = append(prev[:0], name...)
		h.Write(entry[24:28])                      // mode
		h.Write(entry[40 : 40+oidLen])             // object
		h.Write([]byte{byte(flags>>8) &^ 0x4f})    // assume-valid, stage
		h.Write([]byte{byte(ext >> 8), byte(ext)}) // skip-worktree, intent-to-add
		h.Write(name)
		h.Write([]byte{0})
	}
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
