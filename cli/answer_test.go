package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// The view's n key answers the question that waits, and is a note when
// none does.
func TestAnswerFromView(t *testing.T) {
	is := is.New(t)
	ws := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(ws, runlog.StateDir), 0o700))
	st := runlog.State{Status: runlog.StatusRunning}
	is.NoErr(runlog.WriteJSON(runlog.Path(ws, runlog.StateFile), st))
	asked, err := answerFromView(ws, "a note")
	is.NoErr(err)
	is.True(!asked) // no question: the text is a note

	st.Status, st.Question = runlog.StatusWaiting, &runlog.Question{Iteration: 3, Text: "which one?"}
	is.NoErr(runlog.WriteJSON(runlog.Path(ws, runlog.StateFile), st))
	asked, err = answerFromView(ws, "  the second  ")
	is.NoErr(err)
	is.True(asked)
	a, ok := runlog.ReadAnswer(ws, 3)
	is.True(ok)
	is.Equal(a.Text, "the second")
	_, err = answerFromView(ws, "   ")
	is.True(err != nil) // an empty answer is refused

	st.Question.Outcome = runlog.QuestionAnswered
	is.NoErr(runlog.WriteJSON(runlog.Path(ws, runlog.StateFile), st))
	asked, err = answerFromView(ws, "later")
	is.NoErr(err)
	is.True(!asked) // answered already: the text is a note
}
