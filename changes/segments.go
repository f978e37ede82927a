package changes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strings"

	"github.com/architect-dev/architect/textcut"
)

// segment is one file's part of a diff: from its "diff --git" line to the
// next one. A diff is its segments in git's order, which is the order of
// their keys (a type change is two segments with the same key, adjacent).
// What a cached diff keeps of a segment is small: its size, its hash, its
// stat line and, near the start of the diff only, its first bytes.
type segment struct {
	key  string // the path git orders it by: the file's, or a rename's new path
	from string // a rename's old path, else ""
	// cand: the segment adds, deletes or renames a file. Rename detection
	// pairs deleted with added files across the whole diff, so such a
	// segment may change when any other such file changes.
	cand bool
	size int64
	sum  [sha256.Size]byte
	head []byte // its first min(size, limit) bytes; nil when not kept
	stat fileStat
}

// paths returns the paths the segment is about.
func (s *segment) paths() []string {
	if s.from != "" {
		return []string{s.key, s.from}
	}
	return []string{s.key}
}

const diffHeader = "diff --git "

// segmenter cuts a patch into segments as it streams by, hashing each one
// and keeping the first bytes of those that start within keep bytes of the
// stream (at most limit bytes of each). Memory grows with the number of
// files in the patch, not with its size.
type segmenter struct {
	keep  int64 // keep heads of segments starting before this offset
	limit int   // at most this much of each head
	segs  []segment
	total int64

	cur      segment
	open     bool // cur is being read
	atHeader bool // the current line is cur's "diff --git" line
	keepHead bool
	h        hash.Hash
	parse    fileParse
	line     []byte // the current line's first bytes (at most lineKeep)
	decided  bool   // the current line's segment is known, its bytes emitted
	undecide []byte // the current line's bytes while it is not
}

// Write never fails.
func (s *segmenter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i+1]
		}
		p = p[len(chunk):]
		body := chunk
		if i >= 0 {
			body = chunk[:len(chunk)-1]
		}
		if room := lineKeep - len(s.line); room > 0 {
			s.line = append(s.line, body[:min(len(body), room)]...)
		}
		if s.decided {
			s.emit(chunk)
		} else {
			// A line belongs to a new segment when it starts with the
			// header: wait for enough of it to tell.
			pending := chunk
			if len(s.undecide) > 0 {
				s.undecide = append(s.undecide, chunk...)
				pending = s.undecide
			}
			if len(pending) >= len(diffHeader) || i >= 0 {
				if bytes.HasPrefix(pending, []byte(diffHeader)) {
					s.begin(true)
				}
				s.emit(pending)
				s.undecide, s.decided = s.undecide[:0], true
			} else if len(s.undecide) == 0 {
				s.undecide = append(s.undecide, chunk...)
			}
		}
		if i >= 0 {
			s.endLine()
		}
	}
	return n, nil
}

func (s *segmenter) endLine() {
	switch {
	case s.atHeader:
		s.parse.start(string(s.line[len(diffHeader):]))
		s.atHeader = false
	case s.open:
		s.parse.line(s.line)
	}
	s.line, s.decided = s.line[:0], false
}

// begin closes the current segment and opens the next, which starts with
// a "diff --git" line when header is set.
func (s *segmenter) begin(header bool) {
	s.close()
	s.cur, s.open, s.atHeader = segment{}, true, header
	s.keepHead = s.total < s.keep && s.limit > 0
	if s.h == nil {
		s.h = sha256.New()
	}
	s.h.Reset()
	s.parse = fileParse{}
}

func (s *segmenter) emit(b []byte) {
	if len(b) == 0 {
		return
	}
	if !s.open {
		s.begin(false) // text before any header (git prints none): a segment of its own
	}
	s.cur.size += int64(len(b))
	s.total += int64(len(b))
	s.h.Write(b)
	if s.keepHead {
		if room := s.limit - len(s.cur.head); room > 0 {
			s.cur.head = append(s.cur.head, b[:min(len(b), room)]...)
		}
	}
}

// close finishes the current segment.
func (s *segmenter) close() {
	if !s.open {
		return
	}
	f := s.parse.done()
	c := &s.cur
	c.stat = f
	c.key = s.parse.path
	if f.rename && f.to != "" && f.from != "" {
		c.key, c.from = f.to, f.from
	}
	c.cand = f.added || f.deleted || f.rename
	s.h.Sum(c.sum[:0])
	s.segs = append(s.segs, *c)
	s.cur, s.open = segment{}, false
}

// flush ends the stream: a last line without a newline, and the last
// segment.
func (s *segmenter) flush() {
	if !s.decided && len(s.undecide) > 0 {
		if bytes.HasPrefix(s.undecide, []byte(diffHeader)) {
			s.begin(true)
		}
		s.emit(s.undecide)
		s.undecide = s.undecide[:0]
	}
	if len(s.line) > 0 || s.decided {
		s.endLine()
	}
	s.close()
}

// compose builds the Diff that segs make, in that order, unless a segment
// within the first limit bytes has not kept the bytes needed: need then
// lists those segments' indexes.
func compose(segs []segment, limit int) (d Diff, need []int) {
	var text []byte
	var stat statSummary
	tree := sha256.New()
	var total int64
	for i := range segs {
		s := &segs[i]
		if total < int64(limit) {
			want := min(s.size, int64(limit)-total)
			if int64(len(s.head)) < want {
				need = append(need, i)
			} else {
				text = append(text, s.head[:want]...)
			}
		}
		total += s.size
		tree.Write(s.sum[:])
		stat.add(s.stat)
	}
	if len(need) > 0 {
		return Diff{}, need
	}
	if total > int64(len(text)) {
		text = textcut.TrimEnd(text)
	}
	return Diff{
		Text:      string(text),
		Total:     total,
		Truncated: total - int64(len(text)),
		Tree:      hex.EncodeToString(tree.Sum(nil)),
		Stat:      stat.String(),
	}, nil
}

// trimHeads drops the first bytes of segments that start keep bytes or
// more into the diff: only a shrinking diff could bring them into view, and
// then they are read again.
func trimHeads(segs []segment, keep int64) {
	var off int64
	for i := range segs {
		if off >= keep {
			segs[i].head = nil
		}
		off += segs[i].size
	}
}

// pathSet holds paths relative to the top-level folder; a folder stands for
// everything in it.
type pathSet map[string]bool

func newPathSet(paths []string) pathSet {
	s := make(pathSet, len(paths))
	for _, p := range paths {
		s[p] = true
	}
	return s
}

// covers reports whether p is in the set or inside a folder of it.
func (s pathSet) covers(p string) bool {
	for {
		if s[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// touches reports whether any of the segment's paths is covered.
func (s pathSet) touches(seg *segment) bool {
	return s.covers(seg.key) || seg.from != "" && s.covers(seg.from)
}

// replace returns segs less those touched by paths, merged with fresh (the
// diff of exactly those paths), in git's order.
func replace(segs []segment, paths pathSet, fresh []segment) []segment {
	out := make([]segment, 0, len(segs)+len(fresh))
	j := 0
	for i := range segs {
		if paths.touches(&segs[i]) {
			continue
		}
		for j < len(fresh) && fresh[j].key < segs[i].key {
			out = append(out, fresh[j])
			j++
		}
		out = append(out, segs[i])
	}
	return append(out, fresh[j:]...)
}
