//go:build !linux

package gitwt

import (
	"context"
	"errors"
)

// Watcher is only implemented on Linux (inotify); elsewhere Watch fails
// and every diff looks at the whole tree.
type Watcher struct{}

// Watch is not supported on this system.
func (r *Repo) Watch(ctx context.Context, excludes []string) (*Watcher, error) {
	return nil, errors.ErrUnsupported
}

func (r *Repo) watch(ctx context.Context, excludes []string, clean bool) (*Watcher, error) {
	return nil, errors.ErrUnsupported
}

// Take is never called: Watch returns no Watcher.
func (w *Watcher) Take(ctx context.Context) Changed { return Changed{All: true} }

// Rescan does nothing.
func (w *Watcher) Rescan(ctx context.Context) {}

// Settle does nothing.
func (w *Watcher) Settle(ownIndex bool) {}

// Close does nothing.
func (w *Watcher) Close() error { return nil }
