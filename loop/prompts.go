package loop

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/proc"
	"github.com/architect-dev/architect/prompt"
	"github.com/architect-dev/architect/runlog"
)

// buildPrompt builds iteration i's prompt from values: the task (or the
// specification, read again each time), what the last iterations left
// (their failing checks, the agent's error, the notes about protected
// files and interruptions), the changes so far, the person's notes and
// the progress file.
func (r *runner) buildPrompt(ctx context.Context, i int, notes []string) (string, error) {
	in := prompt.Input{
		PersonNotes:   notes,
		Task:          r.cfg.Task,
		Iteration:     i,
		MaxIterations: r.cfg.MaxIterations,
		Checks:        r.shown.Checks,
		CompletionTag: r.cfg.CompletionTag,
		ExecError:     r.last.execErr,
		Notes:         append(modeNotes(r.cfg.Mode), r.last.protectNote, r.last.interruptNote),
	}
	if r.cfg.Spec != "" {
		spec, err := os.ReadFile(r.cfg.Spec)
		if err != nil {
			return "", fmt.Errorf("cannot read the specification file %s: %w", r.cfg.Spec, err)
		}
		in.Task, in.FromSpec = proc.Clean(spec), true
	}
	d := r.last.diff
	r.last.diff = nil
	if d == nil && r.ws.repo != nil {
		fresh, err := r.ws.diff(ctx)
		if err != nil {
			if ctx.Err() == nil {
				r.warn("could not compute the changes so far: " + r.cleanText(err.Error()))
			}
		} else {
			d = &fresh
			r.keepPatch(0, d.Text)
		}
	}
	if d != nil {
		in.Diff, in.DiffTruncated = promptDiff(*d)
		in.Files, in.FilesLeftOut = currentFiles(r.ws.repo.Dir(), d.Changed)
	}
	prevByName := map[string]runlog.CheckResult{}
	for _, c := range r.last.prevPrev {
		prevByName[c.Name] = c
	}
	for _, c := range r.last.prev {
		if c.Passed {
			continue
		}
		f := prompt.CheckFailure{Command: c.Name, Status: c.Status(), Output: c.Output}
		if p, ok := prevByName[c.Name]; ok && !p.Passed {
			out := p.Output
			f.PrevOutput = &out
		}
		in.Failed = append(in.Failed, f)
	}
	if len(r.records) > 0 { // a new run's progress file starts empty
		if b, err := os.ReadFile(r.ws.state(runlog.ProgressFile)); err == nil {
			in.Progress = string(b)
		}
	}
	return prompt.Build(in), nil
}

// modeNotes are the instructions plan and build modes add to the prompt.
func modeNotes(mode string) []string {
	switch mode {
	case config.ModePlan:
		return []string{"Plan mode: do not implement anything. Compare the specification with the code, and write or update IMPLEMENTATION_PLAN.md: a prioritised list of the tasks left, each small enough for one iteration."}
	case config.ModeBuild:
		return []string{"Build mode: pick the most important unfinished task from IMPLEMENTATION_PLAN.md, implement it with its tests, and mark it done there. One task per iteration: architect commits after each iteration."}
	}
	return nil
}

// currentFiles reads the changed files under root for the prompt: whole
// regular text files, in order, while they fit in prompt.FilesLimit bytes
// together; the others are named in leftOut. Nothing is read through a
// symbolic link or outside root (os.Root), so a link an agent made cannot
// bring a file from elsewhere into the prompt.
func currentFiles(root string, paths []string) (shown []prompt.File, leftOut []string) {
	if len(paths) == 0 {
		return nil, nil
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil, nil
	}
	defer rt.Close()
	budget := prompt.FilesLimit
	for _, p := range paths {
		name := filepath.FromSlash(p)
		st, err := rt.Lstat(name)
		if err != nil || !st.Mode().IsRegular() {
			continue // gone since, or a link or a submodule: the diff says what it is
		}
		if st.Size() > int64(budget) {
			leftOut = append(leftOut, p)
			continue
		}
		b, err := readAtMost(rt, name, budget)
		if err != nil || len(b) > budget || !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
			leftOut = append(leftOut, p)
			continue
		}
		shown = append(shown, prompt.File{Path: p, Content: proc.Clean(b)})
		budget -= len(b)
	}
	return shown, leftOut
}

// readAtMost reads name under rt, at most limit+1 bytes (a file that grew
// since its Lstat reads as too large).
func readAtMost(rt *os.Root, name string, limit int) ([]byte, error) {
	f, err := rt.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(io.LimitReader(f, int64(limit)+1))
	return buf.Bytes(), err
}
