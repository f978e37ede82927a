package agent

import "errors"

// TODO(adapter): replaced by the real codex adapter.
func newCodex(Config) (Agent, error) { return nil, errors.New("the codex adapter is not built yet") }
