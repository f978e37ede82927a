package agent

import "errors"

// TODO(adapter): replaced by the real claude adapter.
func newClaude(Config) (Agent, error) { return nil, errors.New("the claude adapter is not built yet") }
