package agent

import "errors"

// TODO(adapter): replaced by the real gemini adapter.
func newGemini(Config) (Agent, error) { return nil, errors.New("the gemini adapter is not built yet") }
