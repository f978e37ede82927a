package agent

import "errors"

// TODO(adapter): replaced by the real amp adapter.
func newAmp(Config) (Agent, error) { return nil, errors.New("the amp adapter is not built yet") }
