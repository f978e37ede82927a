//go:build !linux

package sandbox

import (
	"errors"

	"github.com/architect-dev/architect/sandbox/helper"
)

// thread: only Linux confines a thread; elsewhere the helper starts every
// confined process (sandbox-exec on macOS).
type thread struct{}

func newThread(helper.Policy) (*thread, error) {
	return nil, errors.New("confined threads need Linux")
}

func (*thread) run(func() error) error { return errThreadEnded }

func (*thread) close() {}
