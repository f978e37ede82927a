package loop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/architect-dev/architect/runlog"
	"github.com/architect-dev/architect/usererr"
)

// What a new run finds in its workspace from an earlier one: an
// interrupted run (refused unless --new), stale DONE and WAIT signals
// (archived, and said so), a --done-file that already exists (noted, so
// that it signals completion only once it changes).

// refuseInterrupted refuses to start a new run over one that was
// interrupted (cancelled, killed, waiting, paused) unless --new was given:
// the interrupted run is continued with --resume, never set aside
// silently. It is called with the workspace's lock held, so no other loop
// is running there.
func (r *runner) refuseInterrupted() error {
	st, err := runlog.ReadState(r.ws.dir)
	if err != nil || !st.Interrupted(false) {
		return nil
	}
	how := st.Status
	switch {
	case st.Active:
		how = "killed (its process is gone)"
	case st.StopReason != "":
		how = "stopped on " + st.StopReason
	}
	if r.cfg.New {
		r.warn(fmt.Sprintf("the last run in %s was interrupted after iteration %d of %d (%s): starting a new run as --new asks; the interrupted one is kept in %s",
			r.ws.dir, st.Iteration, st.MaxIterations, how, filepath.Join(runlog.StateDir, "runs")))
		return nil
	}
	return &usererr.Error{
		Msg: fmt.Sprintf("the last run in %s was interrupted after iteration %d of %d (%s)", r.ws.dir, st.Iteration, st.MaxIterations, how),
		Hint: fmt.Sprintf("continue it with `architect loop --resume -C %s`, or start a new run with --new (the interrupted run is then kept in %s)",
			r.ws.dir, filepath.Join(r.ws.dir, runlog.StateDir, "runs")),
	}
}

// reportArchived tells the user what of an earlier run was moved away, and
// in particular a DONE or WAIT signal that would otherwise have stopped
// this run at once.
func (r *runner) reportArchived(a runlog.Archived) {
	if a.Dir == "" {
		return
	}
	rel := a.Dir
	if x, err := filepath.Rel(r.ws.dir, a.Dir); err == nil {
		rel = x
	}
	for _, name := range []string{runlog.DoneFile, runlog.WaitFile} {
		if slices.Contains(a.Names, name) {
			r.warn(fmt.Sprintf("found %s from an earlier run: moved it to %s, so it does not end this run", filepath.Join(runlog.StateDir, name), filepath.Join(rel, name)))
		}
	}
	if len(a.Names) > 0 {
		r.logf("the previous run's records were moved to %s", rel)
	}
}

// existingDoneFile identifies a --done-file that exists before the run
// starts (see doneStamp): it was not made by this run's agent, so it
// signals completion only once it is created again or changed. A directory
// there is refused before anything is written.
func (r *runner) existingDoneFile() (string, error) {
	if r.cfg.DoneFile == "" {
		return "", nil
	}
	fi, err := os.Stat(donePath(r.cfg, r.ws))
	switch {
	case os.IsNotExist(err):
		return "", nil
	case err != nil:
		return "", &usererr.Error{Msg: "the DONE file " + donePath(r.cfg, r.ws) + " cannot be looked at: " + errText(err), Hint: "give --done-file the path of a file the agent creates when it is done"}
	case fi.IsDir():
		return "", &usererr.Error{Msg: "the DONE file " + donePath(r.cfg, r.ws) + " is a directory", Hint: "remove it, or give --done-file the path of a file the agent creates when it is done"}
	}
	r.warn(fmt.Sprintf("the done file %s exists already: it is not taken as a completion signal until the agent creates or changes it", donePath(r.cfg, r.ws)))
	return doneStamp(fi), nil
}

// doneStamp identifies a version of the DONE file.
func doneStamp(fi os.FileInfo) string {
	return fi.ModTime().UTC().Format(time.RFC3339Nano) + " " + strconv.FormatInt(fi.Size(), 10)
}

// errText is err without the path an *os.PathError repeats.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
