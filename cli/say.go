package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/merge"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/redact"
	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
	"github.com/spf13/cobra"
)

func newSayCmd(e *env) *cobra.Command {
	var dir, name string
	var now bool
	c := &cobra.Command{
		Use:   "say [-C DIR] [--worktree-name NAME] [--now] TEXT...",
		Short: "tell a running loop something: the next iteration's prompt carries it",
		Long: `Queues a note for the loop run in the workspace (or in the repository's
worktree): the next iteration's prompt carries it in a section of its own,
"Notes from the Person Running This Loop", and the progress file records
it. Several notes queue in order. It works from any terminal, on a loop
that runs, waits for a usage limit or is paused (a loop paused on a stall
goes on with the note); on a stopped run, the note waits for the resume.

With --now, the running agent is stopped gracefully (SIGTERM, then the
grace period) and the next iteration starts at once with the note; a wait
(backoff, usage limit) ends too.

The note is text: it goes into the prompt as it is, never run, with
secrets masked as everywhere else. TEXT - reads it from standard input.`,
		Example: `  architect say "the failing test is flaky: skip TestNetwork, fix the parser"
  architect say --now "stop: the spec changed, read SPEC.md again"
  git diff | architect say -`,
		GroupID: groupControl,
		Args:    textArgs("say needs the text of the note", `architect say "use the fixtures in testdata/" (or - to read it from standard input)`),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := argsText(e, args, runlog.MaxNoteBytes, "note")
			if err != nil {
				return err
			}
			return runSay(e, dir, name, text, now)
		},
	}
	c.Flags().StringVarP(&dir, "dir", "C", ".", "workspace `directory` (or the repository of a --worktree run)")
	c.Flags().StringVar(&name, "worktree-name", "", "the run's worktree `NAME`")
	c.Flags().BoolVar(&now, "now", false, "stop the running agent gracefully and start the next iteration with the note at once")
	_ = c.MarkFlagDirname("dir")
	_ = c.RegisterFlagCompletionFunc("worktree-name", completeWorktreeNames)
	return c
}

// runSay checks the note and the run, then queues the note: cleaned of
// terminal escapes and masked with the run's --redact patterns and this
// environment's secrets before it is written (the loop masks it again
// with its own environment where it reads it).
func runSay(e *env, dir, name, text string, now bool) error {
	text, err := noteText(text)
	if err != nil {
		return err
	}
	ws, err := merge.FindRun(dir, name)
	if err != nil {
		return err
	}
	st, err := runlog.ReadState(ws)
	if err != nil {
		return err
	}
	running := runlog.Running(ws)
	if !st.Resumable() {
		return &usererr.Error{Msg: "the run in " + ws + " already succeeded: no iteration will read the note", Hint: "start a new run with `architect loop`"}
	}
	if err := queueNote(ws, st, text, now); err != nil {
		return err
	}
	switch {
	case !running:
		fmt.Fprintf(e.stdout, "note queued for %s\n", ws)
		usererr.Say(e.stderr, usererr.LevelWarning, "no loop is running in %s: the note waits for the run to go on (`architect resume -C %s`)", ws, ws)
	case st.PausedFor != "":
		fmt.Fprintf(e.stdout, "note queued for %s: the loop, paused on a stall, goes on with it\n", ws)
	case st.Status == runlog.StatusPaused || controlAction(ws) == "pause":
		fmt.Fprintf(e.stdout, "note queued for %s: the loop is paused; the next iteration carries the note once it is resumed (`architect resume`)\n", ws)
	case now:
		fmt.Fprintf(e.stdout, "note queued for %s: the running agent is being stopped; the next iteration starts with the note at once\n", ws)
	default:
		fmt.Fprintf(e.stdout, "note queued for %s: the next iteration's prompt carries it\n", ws)
	}
	return nil
}

// noteText is a note as it is queued: cleaned of terminal escapes and
// trimmed; an empty note or one over runlog.MaxNoteBytes is refused.
func noteText(text string) (string, error) {
	text = strings.TrimSpace(proc.Clean([]byte(text)))
	switch {
	case text == "":
		return "", &usererr.Error{Msg: "the note is empty", Hint: `give its text: architect say "use the fixtures in testdata/"`}
	case len(text) > runlog.MaxNoteBytes:
		return "", &usererr.Error{Msg: fmt.Sprintf("the note is over %d bytes", runlog.MaxNoteBytes), Hint: "say it in fewer words, or put the details in a file in the workspace and name the file in the note"}
	}
	return text, nil
}

// queueNote masks a note with the run's --redact patterns, this
// environment's secrets and the known credential formats, and queues it
// for the loop in ws.
func queueNote(ws string, st *runlog.State, text string, now bool) error {
	cfg, _ := savedConfig(st) // what can be read of it
	if r, err := redact.FromEnv(cfg.Redact, cfg.Task); err == nil {
		if cfg.RedactKnown != config.RedactKnownOff {
			r = r.WithKnown()
		}
		text = r.String(text)
	}
	if _, err := runlog.AddNote(ws, text, now); err != nil {
		if errors.Is(err, runlog.ErrQueueFull) {
			return &failure{err: err, hint: "wait for the next iteration to take them (`architect status` counts them), or say it all in one note", code: ExitUsage}
		}
		if errors.Is(err, os.ErrPermission) {
			return &usererr.Error{Msg: "cannot write the note into " + ws + ": " + unwrapPath(err), Hint: "run architect say as the user who runs the loop"}
		}
		return err
	}
	return nil
}

// sayFromView is the terminal view's n key: the note typed goes to the
// run in ws as `architect say` sends it.
func sayFromView(ws, text string) error {
	text, err := noteText(text)
	if err != nil {
		return err
	}
	st, err := runlog.ReadState(ws)
	if err != nil {
		return err
	}
	return queueNote(ws, st, text, false)
}

// textArgs refuses a command of say's kind (answer, say) without its text,
// with msg and hint.
func textArgs(msg, hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return &usererr.Error{Msg: msg, Hint: hint}
		}
		return nil
	}
}

// argsText is the text a command of say's kind was given: its arguments
// joined, or with - alone, standard input (at most limit bytes and one
// more, so that the caller can say it is too long); what names it in an
// error.
func argsText(e *env, args []string, limit int, what string) (string, error) {
	if len(args) != 1 || args[0] != "-" {
		return strings.Join(args, " "), nil
	}
	b, err := io.ReadAll(io.LimitReader(e.stdin, int64(limit)+1))
	if err != nil {
		return "", fmt.Errorf("reading the %s from standard input: %w", what, err)
	}
	return string(b), nil
}
