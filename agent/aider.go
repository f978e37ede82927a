package agent

import "errors"

// TODO(adapter): replaced by the real aider adapter.
func newAider(Config) (Agent, error) { return nil, errors.New("the aider adapter is not built yet") }
