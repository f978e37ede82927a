package changes

import (
	"context"

	"github.com/architect-dev/architect/gitwt"
)

// Watch starts a Watcher on the working tree of r, less excludes (paths
// relative to the top-level folder), for a caller that keeps it across
// several Changes (ChangesOptions.Watcher) and closes it. clean says the
// tree is a fresh checkout (no folder is ignored, no file has another
// link). It fails where watching is not possible (not Linux, a tree with
// too many folders).
func Watch(ctx context.Context, r *gitwt.Repo, excludes []string, clean bool) (*Watcher, error) {
	return watch(ctx, r, excludes, clean)
}

// maxChanged bounds the paths a Watcher remembers between two Takes. Past
// it, Take reports that anything may have changed: a change that big costs
// a look at the whole tree anyway, and the paths would not fit on git's
// command line.
// Changes bounds its path lists by it too, on every system.
var maxChanged = 2048 // a variable for tests

// Changed is what a Watcher saw between two Takes.
type Changed struct {
	// Paths that may have changed, relative to the top-level folder, in
	// byte order; a folder stands for everything in it.
	Paths []string
	// Appeared are those of Paths that may have appeared since (created,
	// moved in, folders); the others existed before and were only written
	// or had their mode changed in place (or are gone now).
	Appeared []string
	// All: the watcher cannot tell which paths changed (events were lost,
	// too many changed, ignore rules or attributes changed, or watching
	// broke down).
	All bool
	// Index: the repository's index was written, by someone else than
	// the caller (see Settle); what it tracks may have changed.
	Index bool
}
