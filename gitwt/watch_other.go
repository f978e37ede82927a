//go:build !linux

package gitwt

import (
	"context"
	"errors"
)

// Watcher is only implemented on Linux (inotify); elsewhere Watch fails
// and the diff is recomputed every time.
type Watcher struct{}

// Watch is not supported on this system.
func (r *Repo) Watch(ctx context.Context, excludes []string) (*Watcher, error) {
	return nil, errors.ErrUnsupported
}

// Gen is never called: Watch returns no Watcher.
func (w *Watcher) Gen(ctx context.Context) uint64 { return 0 }

// Close does nothing.
func (w *Watcher) Close() error { return nil }
