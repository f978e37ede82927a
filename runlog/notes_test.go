package runlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
)

// The queue under concurrent writers and a reader: every note is read
// whole or not at all, never twice, all arrive, in the order written.
func TestNotesQueueRaceFree(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(dir, StateDir), 0o700))
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < each; k++ {
				if _, err := AddNote(dir, fmt.Sprintf("writer %d note %03d %s", w, k, strings.Repeat("x", 3000)), false); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	stop := make(chan struct{})
	seen := map[string]string{}
	var reads sync.WaitGroup
	reads.Add(1)
	go func() {
		defer reads.Done()
		for {
			notes, err := PendingNotes(dir)
			if err != nil {
				t.Error(err)
			}
			for _, n := range notes {
				if old, ok := seen[n.ID]; ok && old != n.Text {
					t.Errorf("note %s read two ways", n.ID)
				}
				if !strings.HasSuffix(n.Text, strings.Repeat("x", 3000)) {
					t.Errorf("note %s read partly: %d bytes", n.ID, len(n.Text))
				}
				seen[n.ID] = n.Text
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	wg.Wait()
	close(stop)
	reads.Wait()
	notes, err := PendingNotes(dir)
	is.NoErr(err)
	is.Equal(len(notes), writers*each)
	last := map[string]int{}
	for _, n := range notes { // each writer's notes in the order it wrote them
		var w, k int
		_, err := fmt.Sscanf(n.Text, "writer %d note %d", &w, &k)
		is.NoErr(err)
		key := fmt.Sprint(w)
		if prev, ok := last[key]; ok {
			is.True(k > prev)
		}
		last[key] = k
	}
}

func TestAddNoteRefusesBadText(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	_, err := AddNote(dir, "  \n", false)
	is.True(err != nil)
	_, err = AddNote(dir, strings.Repeat("a", MaxNoteBytes+1), false)
	is.True(err != nil)
	_, err = os.Stat(filepath.Join(dir, StateDir, NotesDir))
	is.True(os.IsNotExist(err)) // nothing written
	n, err := AddNote(dir, "fine", true)
	is.NoErr(err)
	data, err := os.ReadFile(filepath.Join(dir, StateDir, NotesDir, n.ID+".json"))
	is.NoErr(err)
	var back Note
	is.NoErr(json.Unmarshal(data, &back))
	is.Equal(back.Text, "fine")
	is.True(back.Now)
	fi, err := os.Stat(filepath.Join(dir, StateDir, NotesDir, n.ID+".json"))
	is.NoErr(err)
	is.Equal(fi.Mode().Perm(), os.FileMode(0o600))
}

// The queue is bounded: the loop reads it twice a second while it waits.
func TestNotesQueueBounded(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	for i := 0; i < MaxQueuedNotes; i++ {
		_, err := AddNote(dir, fmt.Sprint("note ", i), false)
		is.NoErr(err)
	}
	_, err := AddNote(dir, "one too many", false)
	is.True(errors.Is(err, ErrQueueFull))
}
