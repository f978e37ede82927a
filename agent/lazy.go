package agent

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use, keeping the agent parsers'
// expressions out of architect's start-up time.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
