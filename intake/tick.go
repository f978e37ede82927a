package intake

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// MaxPlanBytes bounds the plan read: a plan is text a person writes.
const MaxPlanBytes = 4 << 20

// ErrChanged says the plan's file is no longer what architect read (or
// last wrote): it ticks nothing in it then.
var ErrChanged = errors.New("the plan changed since architect read it")

// Plan is a Markdown plan as read, and the items found in it. Its ticks
// are written to the file it was read from, one at a time.
type Plan struct {
	Path  string // as given
	Items []Item

	mu     sync.Mutex
	target string // Path with its symbolic links resolved: the file ticked
	data   []byte // the file's bytes as read, then as last written
	perm   os.FileMode
}

// ReadPlan reads and parses the plan at path.
func ReadPlan(path string) (*Plan, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, planError(path, err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		return nil, planError(path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &usererr.Error{Msg: "--from " + path + ": not a file", Hint: "give the path of a Markdown plan (--from plan.md) or github-issues"}
	}
	if fi.Size() > MaxPlanBytes {
		return nil, &usererr.Error{Msg: fmt.Sprintf("--from %s: %d bytes, more than a plan's %d", path, fi.Size(), MaxPlanBytes), Hint: "split the plan into smaller files"}
	}
	data, err := os.ReadFile(target)
	if err != nil {
		return nil, planError(path, err)
	}
	return &Plan{Path: path, Items: Parse(data), target: target, data: data, perm: fi.Mode().Perm()}, nil
}

func planError(path string, err error) error {
	hint := "check the path of the plan"
	if errors.Is(err, os.ErrNotExist) {
		hint = "--from takes github-issues or the path of a Markdown plan with checklist items (- [ ] ...)"
	}
	return &usererr.Error{Msg: "--from " + path + ": cannot read the plan: " + unwrapPath(err), Hint: hint, Err: err}
}

func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Pending is the items not ticked yet.
func (p *Plan) Pending() []Item {
	var out []Item
	for _, it := range p.Items {
		if !it.Done {
			out = append(out, it)
		}
	}
	return out
}

// Tick ticks the item with id in the file: its `[ ]` becomes `[x]`, and
// not one other byte changes. The file is replaced atomically, and only
// when it is still byte for byte what architect read or last wrote
// (ErrChanged otherwise: a person's edit is never overwritten). Ticking
// an item ticked already does nothing. It is safe to call from several
// goroutines.
func (p *Plan) Tick(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := -1
	for i, it := range p.Items {
		if it.ID == id {
			k = i
		}
	}
	if k < 0 {
		return fmt.Errorf("no item %s in %s", id, p.Path)
	}
	if p.Items[k].Done {
		return nil
	}
	now, err := os.ReadFile(p.target)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, p.data) {
		return ErrChanged
	}
	next, err := TickBytes(p.data, p.Items[k])
	if err != nil {
		return err
	}
	if err := runlog.ReplaceFile(p.target, next, p.perm); err != nil {
		return err
	}
	p.data = next
	p.Items[k].Done = true
	return nil
}

// TickBytes is data with item's box ticked: the one byte between its
// brackets, a space, becomes an x.
func TickBytes(data []byte, it Item) ([]byte, error) {
	if it.Box < 1 || it.Box+1 >= len(data) || data[it.Box-1] != '[' || data[it.Box] != ' ' || data[it.Box+1] != ']' {
		return nil, fmt.Errorf("line %d: no [ ] at byte %d to tick", it.Line, it.Box)
	}
	out := bytes.Clone(data)
	out[it.Box] = 'x'
	return out, nil
}
