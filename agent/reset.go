package agent

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// When a usage limit lifts, read from what each CLI says: a time of day in
// its words ("resets 5pm (Europe/Paris)", "try again at 6:19 AM"), a Unix
// time (Claude's rate_limit_event resetsAt), a delay ("Suggested retry
// after 37s.", "try again in 5 days 22 hours 11 minutes"), an HTTP header
// an agent passes on (Retry-After, x-ratelimit-reset-*), or a rule (a
// Gemini daily quota lifts at midnight Pacific time). The loop waits until
// then, plus a small margin, instead of guessing.

// Reset is when a usage limit lifts, as precisely as the agent said it.
type Reset struct {
	At time.Time // zero: the agent did not say
	// Within is the precision of At: the limit lifts somewhere in [At,
	// At+Within). A time of day printed to the minute ("try again at 6:19
	// AM") is Within a minute; a Unix time or a delay in seconds is exact (0).
	Within time.Duration
}

// exactReset is a reset time known to the second.
func exactReset(t time.Time) Reset { return Reset{At: t} }

// minuteReset is a reset time read from a clock time printed to the minute.
func minuteReset(t time.Time) Reset {
	if t.IsZero() {
		return Reset{}
	}
	return Reset{At: t, Within: time.Minute}
}

// setReset records r in the outcome.
func (o *Outcome) setReset(r Reset) { o.ResetAt, o.ResetWithin = r.At, r.Within }

// retryIn matches a delay given in an error message, in one unit or
// several: "try again in 2.5s", "Please retry in 37.5s", "Suggested retry
// after 37s.", "retry after 2m", "try again in 5 days 22 hours 11
// minutes", "try again in 1h30m" (Go's notation, as OpenAI writes it).
var (
	retryIn   = lazyRegexp(`(?i)(?:try again in|retry in|retry after|retry-after:?)\s*((?:\d+(?:\.\d+)?\s*(?:milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b[\s,]*(?:and\s+)?)+)`)
	retryInGo = lazyRegexp(`(?i)(?:try again in|retry in|retry after)\s*((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)\b`)
	delayPart = lazyRegexp(`(?i)(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b`)
)

// retryDelay reads a delay from an error message.
func retryDelay(text string) (time.Duration, bool) {
	if m := retryInGo().FindStringSubmatch(text); m != nil {
		if d, err := time.ParseDuration(strings.ToLower(m[1])); err == nil && d >= 0 && d < 1e7*time.Second {
			return d, true
		}
	}
	m := retryIn().FindStringSubmatch(text)
	if m == nil {
		return 0, false
	}
	var total float64 // seconds
	for _, p := range delayPart().FindAllStringSubmatch(m[1], -1) {
		v, err := strconv.ParseFloat(p[1], 64)
		if err != nil || v < 0 {
			return 0, false
		}
		total += v * unitSeconds(strings.ToLower(p[2]))
	}
	if total > 1e7 { // over 115 days: not a delay anyone means
		return 0, false
	}
	return time.Duration(total * float64(time.Second)), true
}

func unitSeconds(u string) float64 {
	switch {
	case u == "ms" || strings.HasPrefix(u, "milli"):
		return 0.001
	case u == "d" || strings.HasPrefix(u, "day"):
		return 86400
	case u == "h" || strings.HasPrefix(u, "h"):
		return 3600
	case u == "m" || strings.HasPrefix(u, "min"):
		return 60
	}
	return 1
}

// headerReset reads when to try again from HTTP response headers an agent
// passes on (opencode's error events carry them): Retry-After (seconds or
// an HTTP date), the OpenAI-style x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens ("1s", "6m0s"), x-ratelimit-reset (a Unix time
// or seconds), Anthropic's anthropic-ratelimit-*-reset (RFC 3339) and
// Codex's x-codex-*-reset-at (a Unix time). The latest of them wins: every
// limit they name must have lifted. Zero when none says.
func headerReset(headers map[string]string, now time.Time) time.Time {
	var latest time.Time
	for k, v := range headers {
		if t := oneHeaderReset(strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v), now); t.After(latest) {
			latest = t
		}
	}
	return latest
}

// oneHeaderReset is when header k (lower case) with value v says to try
// again; zero when it does not say.
func oneHeaderReset(k, v string, now time.Time) time.Time {
	switch {
	case k == "retry-after":
		if t, ok := afterUnits(v, now, time.Second, 1e7); ok {
			return t
		}
		if t, err := http.ParseTime(v); err == nil {
			return t
		}
	case k == "retry-after-ms":
		t, _ := afterUnits(v, now, time.Millisecond, 1e10)
		return t
	case strings.HasPrefix(k, "x-ratelimit-reset"), strings.HasPrefix(k, "x-codex-") && strings.HasSuffix(k, "-reset-at"):
		return resetValue(v, now)
	case strings.HasPrefix(k, "x-codex-") && strings.HasSuffix(k, "-reset-after-seconds"):
		t, _ := afterUnits(v, now, time.Second, 1e7)
		return t
	case strings.HasPrefix(k, "anthropic-ratelimit-") && strings.HasSuffix(k, "-reset"):
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 1e9 {
			return time.Unix(n, 0)
		}
	}
	return time.Time{}
}

// afterUnits reads v as a number of units (above 0, below limit) and
// is that long after now; ok is false when v is no such number.
func afterUnits(v string, now time.Time, unit time.Duration, limit float64) (time.Time, bool) {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || !(n > 0 && n < limit) { // NaN is no number either
		return time.Time{}, false
	}
	return now.Add(time.Duration(n * float64(unit))), true
}

// resetValue reads an x-ratelimit-reset value: a Go-style duration ("1s",
// "6m0s", "20ms"), a Unix time, or a number of seconds.
func resetValue(v string, now time.Time) time.Time {
	if n, err := strconv.ParseFloat(v, 64); err == nil && n > 0 {
		if n > 1e9 { // a Unix time
			return time.Unix(int64(n), 0)
		}
		return now.Add(time.Duration(n * float64(time.Second)))
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return now.Add(d)
	}
	return time.Time{}
}

// pacific is where Google's daily quotas reset, at midnight.
var pacific = func() *time.Location {
	if l, err := time.LoadLocation("America/Los_Angeles"); err == nil {
		return l
	}
	return time.FixedZone("PST", -8*3600)
}()

// pacificMidnight is the next midnight in Pacific time after now: when a
// Gemini API per-day quota resets.
func pacificMidnight(now time.Time) time.Time {
	p := now.In(pacific)
	return time.Date(p.Year(), p.Month(), p.Day()+1, 0, 0, 0, 0, pacific)
}

// isOutage reports whether an API error says that the provider's service
// failed rather than the request or the account: a 5xx status, overload,
// or the service unreachable. Such errors are retried with backoff, and
// past --outage-retries the loop falls back to the next agent. The fatal
// cases (authentication, model, billing) are sorted out before.
func isOutage(status int, text string) bool {
	if status >= 500 && status <= 599 {
		return true
	}
	return containsFold(text, "overloaded", "server_error", "internal server error", "internal error", "high demand",
		"at capacity", "capacity exceeded", "model_capacity_exhausted", "exhausted your capacity", "service unavailable",
		"temporarily unavailable", "bad gateway", "gateway timeout", "unable to connect", "couldn't connect", "could not connect", "connection refused",
		"econnrefused", "econnreset", "fetch failed", "network error", "stream disconnected", "reconnecting",
		"apiconnectionerror", "serviceunavailableerror", "internalservererror")
}
