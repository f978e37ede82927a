package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newAnswerCmd(e *env) *cobra.Command {
	var dir, name string
	c := &cobra.Command{
		Use:   "answer [-C DIR] [--worktree-name NAME] TEXT...",
		Short: "answer the question the agent of a running loop asked",
		Long: `Answers the question the agent asked (questions: on), which the loop
waits for: the next iteration's prompt carries the question and the
answer, in a section of its own, and the loop goes on. It works from any
terminal. On a run stopped because no answer came in time
(question_unanswered), the answer waits for ` + "`architect loop --resume`" + `.
` + "`architect status`" + ` shows the question.

The answer is text: it goes into the prompt as it is, never run, with
secrets masked as everywhere else. TEXT - reads it from standard input.`,
		Example: `  architect answer "use PostgreSQL; the schema is in db/schema.sql"
  architect answer -C ../service "yes, drop the v1 endpoint"`,
		GroupID: groupControl,
		Args:    textArgs("answer needs the text of the answer", `architect answer "use PostgreSQL" (or - to read it from standard input)`),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := argsText(e, args, runlog.MaxAnswerBytes, "answer")
			if err != nil {
				return err
			}
			return runAnswer(e, dir, name, text)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", ".", "workspace `directory` (or the repository of a --worktree run)")
	c.Flags().StringVar(&name, "worktree-name", "", "the run's worktree `NAME`")
	_ = c.MarkFlagDirname("dir")
	_ = c.RegisterFlagCompletionFunc("worktree-name", completeWorktreeNames)
	return c
}

// answerFromView is the terminal view's n key while the agent's question
// waits: what is typed answers it, as `architect answer` does. It reports
// false, doing nothing, when no question waits (the text is then a note).
func answerFromView(ws, text string) (bool, error) {
	st, err := runlog.ReadState(ws)
	if err != nil || st.Question == nil || st.Question.Outcome != runlog.QuestionWaiting {
		return false, nil
	}
	text = strings.TrimSpace(proc.Clean([]byte(text)))
	if text == "" || len(text) > runlog.MaxAnswerBytes {
		return true, fmt.Errorf("an answer is 1 to %d bytes", runlog.MaxAnswerBytes)
	}
	return true, writeAnswer(ws, st, text)
}

// runAnswer checks the answer and that a question waits for it, then
// hands it to the loop (runlog.WriteAnswer), masked as a note is.
func runAnswer(e *env, dir, name, text string) error {
	text = strings.TrimSpace(proc.Clean([]byte(text)))
	switch {
	case text == "":
		return &usererr.Error{Msg: "the answer is empty", Hint: `give its text: architect answer "use PostgreSQL"`}
	case len(text) > runlog.MaxAnswerBytes:
		return &usererr.Error{Msg: fmt.Sprintf("the answer is over %d bytes", runlog.MaxAnswerBytes), Hint: "answer in fewer words, or put the details in a file in the workspace and name the file"}
	}
	ws, err := merge.FindRun(dir, name)
	if err != nil {
		return err
	}
	st, err := runlog.ReadState(ws)
	if err != nil {
		return err
	}
	q := st.Question
	waiting := q != nil && (q.Outcome == runlog.QuestionWaiting || q.Outcome == runlog.QuestionTimedOut && st.StopReason == runlog.StopQuestion)
	if !waiting {
		return &usererr.Error{Msg: "no question of the agent waits for an answer in " + ws,
			Hint: "to tell the loop something anyway, use `architect say \"…\"`: the next prompt carries it"}
	}
	if err := writeAnswer(ws, st, text); err != nil {
		return err
	}
	if !runlog.Running(ws) {
		fmt.Fprintf(e.stdout, "answer saved for %s\n", ws)
		usererr.Say(e.stderr, usererr.LevelWarning, "no loop is running in %s: the answer waits for the run to go on (`architect loop --resume -C %s`)", ws, ws)
		return nil
	}
	fmt.Fprintf(e.stdout, "answer sent to the loop in %s: the next iteration's prompt carries it\n", ws)
	return nil
}

// writeAnswer masks text as the run masks everything, and hands it to the
// loop in ws as the answer to the question st keeps.
func writeAnswer(ws string, st *runlog.State, text string) error {
	cfg, _ := savedConfig(st)
	if mask, err := redactor(cfg); err == nil && mask != nil {
		text = mask(text)
	}
	if err := runlog.WriteAnswer(ws, st.Question.Iteration, text, "cli"); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return &usererr.Error{Msg: "cannot write the answer into " + ws + ": " + unwrapPath(err), Hint: "run architect answer as the user who runs the loop"}
		}
		return err
	}
	return nil
}
