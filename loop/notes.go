package loop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/architect-dev/architect/runlog"
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

// notesPerPrompt bounds the notes one prompt carries (the rest wait for
// the next iteration).
const notesPerPrompt = 32 << 10

// notes is the loop's side of the queue.
type notes struct {
	mu        sync.Mutex
	delivered map[string]bool // named by a record: never delivered again
	seen      map[string]bool // announced (note_received)
	taking    []string        // the notes the running iteration's prompt carries
	takingFor int             // that iteration
}

// pending is the queue less what the records name.
func (r *runner) pendingNotes() []runlog.Note {
	all, err := runlog.PendingNotes(r.ws.dir)
	if err != nil {
		r.warn("cannot read the notes queue: " + err.Error())
		return nil
	}
	r.notes.mu.Lock()
	defer r.notes.mu.Unlock()
	return slices.DeleteFunc(all, func(n runlog.Note) bool { return r.notes.delivered[n.ID] })
}

// takeNotes returns the notes the prompt of iteration i carries, oldest
// first, cleaned and masked where they enter the loop, at most
// notesPerPrompt bytes (the rest wait); they are delivered once the
// iteration is recorded (notesRecorded).
func (r *runner) takeNotes(i int) []string {
	var texts, ids []string
	size := 0
	for _, n := range r.pendingNotes() {
		t := r.cleanText(n.Text)
		if size += len(t); size > notesPerPrompt && len(texts) > 0 {
			break
		}
		texts, ids = append(texts, t), append(ids, n.ID)
		r.announce(n, i)
	}
	r.notes.mu.Lock()
	r.notes.taking, r.notes.takingFor = ids, i
	r.notes.mu.Unlock()
	return texts
}

// announce says once that a note arrived: a line and an event.
func (r *runner) announce(n runlog.Note, next int) {
	r.notes.mu.Lock()
	if r.notes.seen == nil {
		r.notes.seen = map[string]bool{}
	}
	if r.notes.seen[n.ID] {
		r.notes.mu.Unlock()
		return
	}
	r.notes.seen[n.ID] = true
	r.notes.mu.Unlock()
	text := r.cleanText(n.Text)
	how := "the prompt of iteration " + fmt.Sprint(next) + " carries it"
	if n.Now {
		how += " (asked for now)"
	}
	r.logf("note from the person running this loop: %q: %s", runlog.Clip(runlog.FirstLine(text), 120), how)
	r.ev.Emit(runlog.Event{Type: runlog.EventNoteReceived, Iteration: next - 1, Text: text, Now: n.Now})
}

// notesRecorded ends the delivery of the notes rec names, once it is
// recorded: they are removed from the queue and announced as delivered.
func (r *runner) notesRecorded(rec record) {
	r.notes.mu.Lock()
	if r.notes.delivered == nil {
		r.notes.delivered = map[string]bool{}
	}
	for _, id := range rec.NoteIDs {
		r.notes.delivered[id] = true
	}
	r.notes.taking = nil
	r.notes.mu.Unlock()
	// The files go once the record is on disk (synced).
	for _, t := range rec.Notes {
		r.ev.Emit(runlog.Event{Type: runlog.EventNoteDelivered, Iteration: rec.Iteration.Iteration, Text: t})
	}
}

// restoreNotes, on resume, takes the notes the records name as delivered,
// and removes those still queued (a run killed between the record and the
// removal).
func (r *runner) restoreNotes() {
	r.notes.delivered = map[string]bool{}
	for _, rec := range r.records {
		for _, id := range rec.NoteIDs {
			r.notes.delivered[id] = true
			_ = os.Remove(r.ws.state(runlog.NotesDir, id+".json"))
		}
	}
}

// noteForNow reports whether a note not yet in a prompt asks for the next
// iteration now (architect say --now).
func (r *runner) noteForNow() bool {
	for _, n := range r.pendingNotes() {
		if n.Now && !r.takenNow(n.ID) {
			return true
		}
	}
	return false
}

func (r *runner) takenNow(id string) bool {
	r.notes.mu.Lock()
	defer r.notes.mu.Unlock()
	return slices.Contains(r.notes.taking, id)
}

// errNoteNow is the cause given to an agent's context when a note asks
// for the next iteration now.
var errNoteNow = errors.New("a note asks for the next iteration now")

// watchNotes looks at the queue while the agent of iteration i runs:
// each new note is announced, and a note for now ends the agent's run
// (stop, with errNoteNow: SIGTERM, the grace period, SIGKILL). stop ends
// the watch.
func (r *runner) watchNotes(ctx context.Context, i int, cancel context.CancelCauseFunc) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			for _, n := range r.pendingNotes() {
				if r.takenNow(n.ID) {
					continue
				}
				r.announce(n, i+1)
				if n.Now {
					r.logf("a note asks for the next iteration now: stopping the agent of iteration %d", i)
					cancel(errNoteNow)
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
