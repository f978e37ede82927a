package agent

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/proc"
)

func TestHeaderReset(t *testing.T) {
	now := time.Date(2026, 11, 24, 6, 19, 19, 0, time.UTC)
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Time
	}{
		{"retry-after seconds", map[string]string{"Retry-After": "3"}, now.Add(3 * time.Second)},
		{"retry-after date", map[string]string{"retry-after": "Tue, 24 Nov 2026 06:25:00 GMT"}, time.Date(2026, 11, 24, 6, 25, 0, 0, time.UTC)},
		{"retry-after-ms", map[string]string{"retry-after-ms": "1500"}, now.Add(1500 * time.Millisecond)},
		{"openai reset durations: the later wins", map[string]string{"x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"}, now.Add(6 * time.Minute)},
		{"x-ratelimit-reset unix", map[string]string{"X-RateLimit-Reset": "1795501200"}, time.Unix(1795501200, 0)},
		{"x-ratelimit-reset seconds", map[string]string{"x-ratelimit-reset": "20"}, now.Add(20 * time.Second)},
		{"anthropic rfc3339", map[string]string{"anthropic-ratelimit-tokens-reset": "2026-11-24T06:20:00Z"}, time.Date(2026, 11, 24, 6, 20, 0, 0, time.UTC)},
		{"codex reset-at", map[string]string{"x-codex-primary-reset-at": "1795501162"}, time.Unix(1795501162, 0)},
		{"codex reset-after", map[string]string{"x-codex-secondary-reset-after-seconds": "90"}, now.Add(90 * time.Second)},
		{"nothing usable", map[string]string{"retry-after": "soon", "content-type": "application/json", "x-ratelimit-reset-tokens": "-1s"}, time.Time{}},
		{"no headers", nil, time.Time{}},
	}
	for _, tt := range tests {
		if got := headerReset(tt.headers, now); !got.Equal(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPacificMidnight(t *testing.T) {
	is := is.New(t)
	// 07:40 UTC in November is 23:40 PST the day before.
	is.Equal(pacificMidnight(time.Date(2026, 11, 22, 7, 40, 0, 0, time.UTC)).UTC(), time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	// In summer, midnight PDT is 07:00 UTC.
	is.Equal(pacificMidnight(time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)).UTC(), time.Date(2026, 7, 2, 7, 0, 0, 0, time.UTC))
}

func TestIsOutage(t *testing.T) {
	is := is.New(t)
	for _, text := range []string{"API Error: 500 Internal server error", "529 Overloaded", "fetch failed sending request",
		"We're currently experiencing high demand", "Selected model is at capacity", "Couldn't connect to the Amp server",
		"stream disconnected before completion"} {
		is.True(isOutage(0, text)) // an outage
	}
	is.True(isOutage(503, "whatever"))
	for _, text := range []string{"Invalid API key", "rate limit exceeded", "model not found", "the agent timed out"} {
		is.True(!isOutage(0, text)) // not an outage
	}
	is.True(!isOutage(429, ""))
}

// The opencode adapter takes the reset time of a rate limit from the
// response headers its error event carries.
func TestOpencodeRateLimitHeaders(t *testing.T) {
	is := is.New(t)
	now := time.Date(2026, 11, 24, 6, 19, 19, 0, time.UTC)
	line := `{"type":"error","error":{"name":"APIError","data":{"message":"Rate limit reached","statusCode":429,"isRetryable":true,` +
		`"responseHeaders":{"x-ratelimit-reset-tokens":"7s","x-ratelimit-reset-requests":"2s"},"responseBody":"{}"}}}` + "\n"
	a := &opencode{cliAdapter{now: func() time.Time { return now }}}
	o, _ := replayOpencode(t, a, []byte(line), nil, proc.Result{ExitCode: 1})
	is.Equal(o.ErrKind, ErrUsageLimit)
	is.Equal(o.ResetAt, now.Add(7*time.Second))
	is.Equal(o.ResetWithin, time.Duration(0))
}
