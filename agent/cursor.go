package agent

import "errors"

// TODO(adapter): replaced by the real cursor adapter.
func newCursor(Config) (Agent, error) { return nil, errors.New("the cursor adapter is not built yet") }
