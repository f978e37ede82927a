//go:build !linux

package changes

import (
	"context"
	"errors"

	"github.com/architect-dev/architect/gitwt"
)

// Watcher is only implemented on Linux (inotify); elsewhere watch fails
// and every diff looks at the whole tree.
type Watcher struct{}

// watch is not supported on this system.
func watch(ctx context.Context, r *gitwt.Repo, excludes []string, clean bool) (*Watcher, error) {
	return nil, errors.ErrUnsupported
}

// Take is never called: watch returns no Watcher.
func (w *Watcher) Take(ctx context.Context) Changed { return Changed{All: true} }

// Rescan does nothing.
func (w *Watcher) Rescan(ctx context.Context) {}

// Settle does nothing.
func (w *Watcher) Settle(ownIndex bool) {}

// Close does nothing.
func (w *Watcher) Close() error { return nil }
