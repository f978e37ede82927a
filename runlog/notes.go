package runlog

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A person steers a running loop with notes: `architect say "…"` queues
// one, from any terminal, and the next iteration's prompt carries it in a
// section of its own; `architect say --now "…"` also ends the running
// agent gracefully so that the next iteration starts with it at once.
//
// The queue is .architect/notes/, one file per note, named by the time it
// was written (so the names sort in order) and a random part. A note is
// written whole to a temporary file and renamed into place, so the loop
// never reads half of one, however the writes and reads interleave; it is
// removed only once the iteration that carried it is recorded (the record
// names it), so a crash in between loses nothing: a note still in the
// queue goes into the next prompt (again, if the crash came after the
// agent saw it), and a note the records name is not delivered twice.
//
// Notes are data: they go into the prompt as text, fenced, never run, and
// masked for secrets where they enter the loop, like every other input.

// MaxNoteBytes bounds one note, MaxQueuedNotes the queue (the loop reads
// it twice a second while it waits).
const (
	MaxNoteBytes   = 8 << 10
	MaxQueuedNotes = 100
)

// ErrQueueFull is AddNote's error when MaxQueuedNotes are waiting.
var ErrQueueFull = fmt.Errorf("%d notes are already waiting for the loop", MaxQueuedNotes)

// Note is one note of the person running the loop.
type Note struct {
	ID   string `json:"-"` // the file's name without .json: sorts in the order written
	Text string `json:"text"`
	Now  bool   `json:"now,omitempty"` // architect say --now
	At   string `json:"at"`
}

// AddNote queues text for the loop in workspace. The text is taken as it
// is (the caller cleans and masks it); it must not be empty or longer than
// MaxNoteBytes.
func AddNote(workspace, text string, now bool) (Note, error) {
	if strings.TrimSpace(text) == "" {
		return Note{}, errors.New("the note is empty")
	}
	if len(text) > MaxNoteBytes {
		return Note{}, fmt.Errorf("the note is %d bytes, over the %d a note may hold", len(text), MaxNoteBytes)
	}
	dir := Path(workspace, NotesDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Note{}, err
	}
	if queued, _ := PendingNotes(workspace); len(queued) >= MaxQueuedNotes {
		return Note{}, ErrQueueFull
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	t := time.Now()
	n := Note{ID: fmt.Sprintf("%020d-%s", t.UnixNano(), hex.EncodeToString(b[:])), Text: text, Now: now, At: t.UTC().Format(time.RFC3339Nano)}
	data, _ := json.Marshal(n)
	if err := writeFile(filepath.Join(dir, n.ID+".json"), append(data, '\n'), 0o600); err != nil {
		return Note{}, err
	}
	return n, nil
}

// PendingNotes lists the notes queued in workspace, oldest first. A file
// that cannot be read as a note is skipped (and left alone).
func PendingNotes(workspace string) ([]Note, error) {
	dir := Path(workspace, NotesDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Note
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue // renameio's temporary files start with a dot
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue // delivered (removed) meanwhile
		}
		var n Note
		if json.Unmarshal(data, &n) != nil || strings.TrimSpace(n.Text) == "" {
			continue
		}
		n.ID = strings.TrimSuffix(name, ".json")
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Note) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
