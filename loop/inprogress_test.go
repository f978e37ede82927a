package loop

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/agent"
	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/usererr"
)

// Build mode commits every iteration; with a merge or a rebase waiting in
// the checkout, its first commit would not be the one git makes. The run
// is refused before any agent runs, naming the operation and how to end
// it; with --worktree it has a checkout of its own and goes ahead.
func TestRefuseInProgress(t *testing.T) {
	for _, tc := range []struct{ file, op, hint string }{
		{"MERGE_HEAD", "a merge is in progress", "git merge --abort"},
		{"rebase-merge", "a rebase is in progress", "git rebase --abort"},
		{"BISECT_LOG", "a bisect is in progress", "git bisect reset"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			is := is.New(t)
			cfg := testConfig(t)
			gitInit(t, cfg.Dir)
			cfg.Mode = config.ModeBuild
			is.NoErr(os.MkdirAll(filepath.Join(cfg.Dir, ".git", tc.file), 0o755))
			a := &scripted{outcomes: []agent.Outcome{done}}
			_, err := Run(context.Background(), cfg, Deps{Agent: a, Log: io.Discard})
			var ue *usererr.Error
			is.True(errors.As(err, &ue))
			is.True(strings.Contains(ue.Msg, tc.op))
			is.True(strings.Contains(ue.Hint, tc.hint))
			is.Equal(a.runs, 0) // refused before any agent ran
		})
	}
}

// A merge started while a build-mode run was stopped is refused when the
// run is resumed, as at its start.
func TestRefuseInProgressOnResume(t *testing.T) {
	is := is.New(t)
	cfg := testConfig(t)
	gitInit(t, cfg.Dir)
	cfg.Mode = config.ModeBuild
	cfg.Checks = []string{"false"}
	cfg.MaxIterations = 1
	res, err := Run(context.Background(), cfg, Deps{Agent: &scripted{outcomes: []agent.Outcome{{FinalMessage: "x"}}}, Log: io.Discard})
	is.NoErr(err)
	is.Equal(res.TotalIterations, 1)
	is.NoErr(os.WriteFile(filepath.Join(cfg.Dir, ".git", "MERGE_HEAD"), nil, 0o644))
	again := &scripted{outcomes: []agent.Outcome{done}}
	_, err = Resume(context.Background(), cfg.Dir, func(c *config.Config) { c.MaxIterations = 2 }, Deps{Agent: again, Log: io.Discard})
	var ue *usererr.Error
	is.True(errors.As(err, &ue))
	is.True(strings.Contains(ue.Msg, "a merge is in progress"))
	is.Equal(again.runs, 0)
}
