package agent

import "errors"

// TODO(adapter): replaced by the real opencode adapter.
func newOpencode(Config) (Agent, error) {
	return nil, errors.New("the opencode adapter is not built yet")
}
