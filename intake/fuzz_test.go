package intake

import (
	"bytes"
	"testing"

	"github.com/architect-dev/architect/config"
)

// FuzzParse: parsing any bytes never panics; every item's ID is usable as
// a worktree and branch name; and ticking any unticked item changes
// exactly one byte, the space between that item's brackets on its line,
// after which the item parses as ticked with the same ID and every other
// item is as it was.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"- [ ] one\n- [x] two\n",
		"# P\r\n1. [ ] a\r\n   - [ ] b\r\n* [ ] c",
		"\xef\xbb\xbf```\n- [ ] x\n```\n+ [ ] y\n",
		"- [ ] a\n\n\t- [ ] b\n  c\n- [ ]\n- [ ] [ ] d\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		items := Parse(data)
		for k, it := range items {
			if !config.ValidWorktreeName(it.ID) {
				t.Fatalf("item %d: ID %q is not a usable worktree name", k, it.ID)
			}
			if it.Done {
				continue
			}
			out, err := TickBytes(data, it)
			if err != nil {
				t.Fatalf("item %d (line %d): %v", k, it.Line, err)
			}
			if len(out) != len(data) {
				t.Fatalf("ticking changed the length")
			}
			for i := range data {
				if (i == it.Box) != (out[i] != data[i]) {
					t.Fatalf("byte %d changed (the box is at %d)", i, it.Box)
				}
			}
			if lineOf(data, it.Box) != it.Line {
				t.Fatalf("the box at %d is on line %d, not the item's %d", it.Box, lineOf(data, it.Box), it.Line)
			}
			after := Parse(out)
			if len(after) != len(items) {
				t.Fatalf("%d items after the tick, %d before", len(after), len(items))
			}
			for j := range items {
				want := items[j]
				if j == k {
					want.Done = true
				}
				if after[j] != want {
					t.Fatalf("item %d after ticking item %d: %+v, want %+v", j, k, after[j], want)
				}
			}
		}
	})
}

// lineOf is the line (from 1) of byte i.
func lineOf(data []byte, i int) int { return bytes.Count(data[:i], []byte("\n")) + 1 }
