package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/architect-dev/architect/proc"
)

// The tests in this file go through every row of every adapter's table of
// error patterns, one pattern at a time, from the output a CLI prints to
// the Outcome: a pattern lost, misspelt or moved below another that shadows
// it fails one of them.

// classifyRow is one failed run and what it must be classified as.
type classifyRow struct {
	name           string
	stdout, stderr string
	exit           int
	kind           ErrorKind
	hint           string // a part of the hint; "" means there is none
	err            string // a part of the error
	reset          time.Time
	within         time.Duration
}

var classifyNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func checkClassified(t *testing.T, rows []classifyRow, replay func(t *testing.T, r classifyRow) Outcome) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			is := is.New(t)
			o := replay(t, r)
			is.Equal(o.ErrKind, r.kind) // kind
			if r.hint == "" {
				is.Equal(o.Hint, "") // no hint
			} else {
				is.True(strings.Contains(o.Hint, r.hint)) // hint
			}
			is.True(o.Err != "")                    // an error is said
			is.True(strings.Contains(o.Err, r.err)) // error text
			is.True(o.ResetAt.Equal(r.reset))       // reset time
			is.Equal(o.ResetWithin, r.within)       // reset precision
			is.True(o.Failed())                     // a failed run
		})
	}
}

func jsonLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestClaudeErrorTable(t *testing.T) {
	result := func(status int, text string) string {
		return jsonLine(t, map[string]any{"type": "result", "subtype": "success", "is_error": true,
			"api_error_status": status, "num_turns": 1, "result": text})
	}
	synthetic := func(kind, text string) string {
		return jsonLine(t, map[string]any{"type": "assistant", "error": kind, "message": map[string]any{
			"id": "x", "model": "<synthetic>", "content": []any{map[string]any{"type": "text", "text": text}}}})
	}
	rejected := jsonLine(t, map[string]any{"type": "rate_limit_event", "rate_limit_info": map[string]any{
		"status": "rejected", "rateLimitType": "five_hour", "resetsAt": 1795345200}})
	const creds, model, billing, perm = "ANTHROPIC_API_KEY", "--model", "no credit left", "permissions"
	rows := []classifyRow{
		{name: "rate_limit_event rejected", stdout: rejected + result(429, "limit"), exit: 1, kind: ErrUsageLimit, err: "limit",
			reset: time.Unix(1795345200, 0)},
		{name: "rate_limit_event rejected, time from the text", stdout: jsonLine(t, map[string]any{"type": "rate_limit_event",
			"rate_limit_info": map[string]any{"status": "rejected"}}) + result(0, "You've hit your limit · resets 5pm (UTC)"), exit: 1,
			kind: ErrUsageLimit, err: "hit your limit", reset: time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC), within: time.Minute},
		{name: "limit text", stdout: result(0, "Claude AI usage limit reached|1795345200"), exit: 1, kind: ErrUsageLimit,
			err: "usage limit", reset: time.Unix(1795345200, 0)},
		{name: "root", stderr: "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons", exit: 1,
			kind: ErrFatal, hint: "IS_SANDBOX=1", err: "root/sudo"},
		{name: "429 with a delay", stdout: result(429, "Rate limited: try again in 30s"), exit: 1, kind: ErrUsageLimit,
			err: "Rate limited", reset: classifyNow.Add(30 * time.Second)},
		{name: "rate_limit error", stdout: synthetic("rate_limit", "API Error: slow down"), exit: 1, kind: ErrUsageLimit, err: "slow down"},
		{name: "rate_limit_error text", stdout: result(0, `API Error: {"type":"rate_limit_error"}`), exit: 1, kind: ErrUsageLimit, err: "rate_limit_error"},
		{name: "403", stdout: result(403, "API Error: 403 forbidden"), exit: 1, kind: ErrFatal, hint: perm, err: "403"},
		{name: "401", stdout: result(401, "API Error: 401"), exit: 1, kind: ErrFatal, hint: creds, err: "401"},
		{name: "authentication_failed", stdout: synthetic("authentication_failed", "Not logged in"), exit: 1, kind: ErrFatal, hint: creds, err: "Not logged in"},
		{name: "oauth_org_not_allowed", stdout: synthetic("oauth_org_not_allowed", "org not allowed"), exit: 1, kind: ErrFatal, hint: creds, err: "org"},
		{name: "Invalid API key", stdout: result(0, "Invalid API key · Please run /login"), exit: 1, kind: ErrFatal, hint: creds, err: "Invalid API key"},
		{name: "authentication_error", stdout: result(0, `{"type":"authentication_error"}`), exit: 1, kind: ErrFatal, hint: creds, err: "authentication_error"},
		{name: "invalid api key, lower case, is not the CLI's message", stdout: result(0, "invalid api key"), exit: 1, kind: ErrTransient, err: "invalid api key"},
		{name: "404", stdout: result(404, "API Error: 404"), exit: 1, kind: ErrFatal, hint: model, err: "404"},
		{name: "model_not_found", stdout: synthetic("model_not_found", "no such model"), exit: 1, kind: ErrFatal, hint: model, err: "no such model"},
		{name: "billing_error", stdout: synthetic("billing_error", "pay up"), exit: 1, kind: ErrFatal, hint: billing, err: "pay up"},
		{name: "402", stdout: result(402, "payment required"), exit: 1, kind: ErrFatal, hint: billing, err: "payment"},
		{name: "insufficient_quota", stdout: result(0, "insufficient_quota"), exit: 1, kind: ErrFatal, hint: billing, err: "insufficient_quota"},
		{name: "credit balance", stdout: result(0, "Your credit balance is too low"), exit: 1, kind: ErrFatal, hint: billing, err: "credit"},
		{name: "current quota", stdout: result(0, "You exceeded your current quota"), exit: 1, kind: ErrFatal, hint: billing, err: "quota"},
		{name: "server_error", stdout: synthetic("server_error", "oops"), exit: 1, kind: ErrOutage, err: "oops"},
		{name: "overloaded", stdout: synthetic("overloaded", "busy"), exit: 1, kind: ErrOutage, err: "busy"},
		{name: "503", stdout: result(503, "API Error: 503"), exit: 1, kind: ErrOutage, err: "503"},
		{name: "connection refused", stdout: result(0, "API Error: Connection refused"), exit: 1, kind: ErrOutage, err: "Connection"},
		{name: "something else", stdout: result(400, "API Error: 400 bad request"), exit: 1, kind: ErrTransient, err: "bad request"},
		{name: "the reasons of an error result", stdout: jsonLine(t, map[string]any{"type": "result", "subtype": "error_during_execution",
			"is_error": true, "num_turns": 1, "errors": []string{"tool crashed", "again"}}), exit: 1, kind: ErrTransient, err: "claude: tool crashed; again"},
		{name: "an error result without reasons", stdout: jsonLine(t, map[string]any{"type": "result", "subtype": "error_max_turns",
			"is_error": true, "num_turns": 1}), exit: 1, kind: ErrTransient, err: "claude: run ended with error_max_turns"},
		{name: "stderr", stderr: "boom\n", exit: 3, kind: ErrTransient, err: "claude: boom"},
		{name: "nothing said", exit: 3, kind: ErrTransient, err: "claude exited with status 3 without a result"},
	}
	checkClassified(t, rows, func(t *testing.T, r classifyRow) Outcome {
		o, _ := replayClaude(t, []byte(r.stdout), proc.Result{ExitCode: r.exit}, r.stderr, classifyNow)
		return o
	})
}

func TestCodexErrorTable(t *testing.T) {
	const auth, model = "OPENAI_API_KEY", "--model"
	failed := func(msg string) string {
		return jsonLine(t, map[string]any{"type": "turn.failed", "error": map[string]any{"message": msg}})
	}
	rows := []classifyRow{
		{name: "upgrade to plus", stdout: failed("To use Codex, Upgrade to Plus"), exit: 1, kind: ErrFatal, hint: "ChatGPT plan", err: "Upgrade"},
		{name: "usage_not_included", stdout: failed("usage_not_included"), exit: 1, kind: ErrFatal, hint: "ChatGPT plan", err: "usage_not_included"},
		{name: "quota exceeded", stdout: failed("Quota exceeded. Check your plan and billing details."), exit: 1, kind: ErrFatal, hint: "no credit", err: "Quota"},
		{name: "insufficient_quota", stdout: failed("insufficient_quota"), exit: 1, kind: ErrFatal, hint: "no credit", err: "insufficient_quota"},
		{name: "current quota", stdout: failed("You exceeded your current quota"), exit: 1, kind: ErrFatal, hint: "no credit", err: "current quota"},
		{name: "out of credits", stdout: failed("out of credits"), exit: 1, kind: ErrFatal, hint: "no credit", err: "credits"},
		{name: "spend cap", stdout: failed("spend cap reached"), exit: 1, kind: ErrFatal, hint: "no credit", err: "spend cap"},
		{name: "billing", stdout: failed("check billing"), exit: 1, kind: ErrFatal, hint: "no credit", err: "billing"},
		{name: "usage limit", stdout: failed("You've hit your usage limit. Try again at 5:46 PM."), exit: 1, kind: ErrUsageLimit,
			err: "usage limit", reset: time.Date(2026, 11, 22, 17, 46, 0, 0, time.UTC), within: time.Minute},
		{name: "last status 429", stdout: failed("exceeded retry limit, last status: 429, retry in 20s"), exit: 1, kind: ErrUsageLimit,
			err: "429", reset: classifyNow.Add(20 * time.Second)},
		{name: "429 too many requests", stdout: failed("429 Too Many Requests"), exit: 1, kind: ErrUsageLimit, err: "429"},
		{name: "usage_limit_reached", stdout: failed("usage_limit_reached"), exit: 1, kind: ErrUsageLimit, err: "usage_limit_reached"},
		{name: "rate limit", stdout: failed("Rate limit reached"), exit: 1, kind: ErrUsageLimit, err: "Rate limit"},
		{name: "missing environment variable", stdout: failed("Missing environment variable: `STUB_KEY`"), exit: 1, kind: ErrFatal,
			hint: "the environment variable Codex names", err: "STUB_KEY"},
		{name: "status 401", stdout: failed("unexpected status 401 Unauthorized"), exit: 1, kind: ErrFatal, hint: auth, err: "401"},
		{name: "status 403", stdout: failed("unexpected status 403"), exit: 1, kind: ErrFatal, hint: auth, err: "403"},
		{name: "unauthorized", stdout: failed("unauthorized"), exit: 1, kind: ErrFatal, hint: auth, err: "unauthorized"},
		{name: "forbidden", stdout: failed("Forbidden"), exit: 1, kind: ErrFatal, hint: auth, err: "Forbidden"},
		{name: "invalid_api_key", stdout: failed("invalid_api_key"), exit: 1, kind: ErrFatal, hint: auth, err: "invalid_api_key"},
		{name: "incorrect api key", stdout: failed("Incorrect API key provided"), exit: 1, kind: ErrFatal, hint: auth, err: "Incorrect"},
		{name: "no codex credentials", stdout: failed("No Codex credentials"), exit: 1, kind: ErrFatal, hint: auth, err: "credentials"},
		{name: "not logged in", stdout: failed("Not logged in"), exit: 1, kind: ErrFatal, hint: auth, err: "logged"},
		{name: "codex login", stdout: failed("run codex login"), exit: 1, kind: ErrFatal, hint: auth, err: "login"},
		{name: "refresh token", stdout: failed("refresh token expired"), exit: 1, kind: ErrFatal, hint: auth, err: "refresh"},
		{name: "access blocked", stdout: failed("Access blocked"), exit: 1, kind: ErrFatal, hint: auth, err: "blocked"},
		{name: "status 404", stdout: failed("unexpected status 404 Not Found"), exit: 1, kind: ErrFatal, hint: model, err: "404"},
		{name: "model_not_found", stdout: failed("model_not_found"), exit: 1, kind: ErrFatal, hint: model, err: "model_not_found"},
		{name: "no access", stdout: failed("The model does not exist or you do not have access to it"), exit: 1, kind: ErrFatal, hint: model, err: "access"},
		{name: "not supported", stdout: failed("model is not supported"), exit: 1, kind: ErrFatal, hint: model, err: "supported"},
		{name: "unsupported model", stdout: failed("Unsupported model"), exit: 1, kind: ErrFatal, hint: model, err: "Unsupported"},
		{name: "unknown model", stdout: failed("unknown model"), exit: 1, kind: ErrFatal, hint: model, err: "unknown"},
		{name: "param model", stdout: failed(`{"param":"model"}`), exit: 1, kind: ErrFatal, hint: model, err: "param"},
		{name: "status 502", stdout: failed("unexpected status 502"), exit: 1, kind: ErrOutage, err: "502"},
		{name: "stream disconnected", stdout: failed("stream disconnected before completion"), exit: 1, kind: ErrOutage, err: "stream"},
		{name: "status 400", stdout: failed("unexpected status 400 Bad Request"), exit: 1, kind: ErrTransient, err: "400"},
		{name: "error event only", stdout: jsonLine(t, map[string]any{"type": "error", "message": "Reconnecting... 5/5"}), exit: 1,
			kind: ErrOutage, err: "codex: Reconnecting"},
		{name: "stderr only", stderr: "fatal: boom\n", exit: 1, kind: ErrTransient, err: "codex: fatal: boom"},
	}
	checkClassified(t, rows, func(t *testing.T, r classifyRow) Outcome {
		o, _ := replayCodex(t, Config{}, []byte(r.stdout), proc.Result{ExitCode: r.exit}, r.stderr, classifyNow)
		return o
	})
}

func TestGeminiErrorTable(t *testing.T) {
	const auth, model = "GEMINI_API_KEY", "--model"
	failed := func(msg string) string {
		return jsonLine(t, map[string]any{"type": "result", "status": "error", "error": map[string]any{"type": "Error", "message": msg}})
	}
	rows := []classifyRow{
		{name: "exit 41", stdout: failed("auth failed"), exit: 41, kind: ErrFatal, hint: auth, err: "auth failed"},
		{name: "status 401", stdout: failed("[API Error: x (Status: 401)]"), exit: 1, kind: ErrFatal, hint: auth, err: "401"},
		{name: "exit 403&0xFF", stdout: failed("no"), exit: 403 & 0xFF, kind: ErrFatal, hint: auth, err: "no"},
		{name: "api key not valid", stdout: failed("API key not valid. Please pass a valid API key."), exit: 1, kind: ErrFatal, hint: auth, err: "API key"},
		{name: "api_key_invalid", stdout: failed("API_KEY_INVALID"), exit: 1, kind: ErrFatal, hint: auth, err: "API_KEY_INVALID"},
		{name: "unauthenticated", stdout: failed("UNAUTHENTICATED"), exit: 1, kind: ErrFatal, hint: auth, err: "UNAUTH"},
		{name: "permission_denied", stdout: failed("PERMISSION_DENIED"), exit: 1, kind: ErrFatal, hint: auth, err: "PERMISSION"},
		{name: "gemini_api_key", stdout: failed("set GEMINI_API_KEY"), exit: 1, kind: ErrFatal, hint: auth, err: "GEMINI_API_KEY"},
		{name: "invalid auth method", stdout: failed("Invalid auth method selected"), exit: 1, kind: ErrFatal, hint: auth, err: "auth method"},
		{name: "invalid credentials", stdout: failed("Request had invalid authentication credentials"), exit: 1, kind: ErrFatal, hint: auth, err: "credentials"},
		{name: "status 404", stdout: failed("[API Error: x (Status: 404)]"), exit: 1, kind: ErrFatal, hint: model, err: "404"},
		{name: "api version", stdout: failed("models/x is not found for API version v1beta"), exit: 1, kind: ErrFatal, hint: model, err: "not found"},
		{name: "model not found", stdout: failed("Model not found"), exit: 1, kind: ErrFatal, hint: model, err: "Model"},
		{name: "ModelNotFound", stdout: failed("ModelNotFoundError"), exit: 1, kind: ErrFatal, hint: model, err: "ModelNotFound"},
		{name: "exhausted your capacity", stdout: failed("You have exhausted your capacity on this model"), exit: 1, kind: ErrOutage, err: "capacity"},
		{name: "capacity exceeded", stdout: failed("capacity exceeded (Status: 429)"), exit: 1, kind: ErrOutage, err: "capacity"},
		{name: "model_capacity_exhausted", stdout: failed("MODEL_CAPACITY_EXHAUSTED"), exit: 1, kind: ErrOutage, err: "CAPACITY"},
		{name: "overloaded", stdout: failed("The model is overloaded"), exit: 1, kind: ErrOutage, err: "overloaded"},
		{name: "429 with a delay", stdout: failed("[API Error: x (Status: 429)] Suggested retry after 37s."), exit: 1, kind: ErrUsageLimit,
			err: "429", reset: classifyNow.Add(37 * time.Second)},
		{name: "daily quota", stdout: failed("You have exhausted your daily quota on this model. Suggested retry after 3s."), exit: 1,
			kind: ErrUsageLimit, err: "daily", reset: pacificMidnight(classifyNow)},
		{name: "PerDay quota", stdout: failed("Quota exceeded for metric: GenerateRequestsPerDayPerProjectPerModel"), exit: 1,
			kind: ErrUsageLimit, err: "PerDay", reset: pacificMidnight(classifyNow)},
		{name: "resource_exhausted", stdout: failed("RESOURCE_EXHAUSTED"), exit: 1, kind: ErrUsageLimit, err: "RESOURCE"},
		{name: "current quota", stdout: failed("You exceeded your current quota"), exit: 1, kind: ErrUsageLimit, err: "quota"},
		{name: "quota exceeded", stdout: failed("Quota exceeded"), exit: 1, kind: ErrUsageLimit, err: "Quota"},
		{name: "resource has been exhausted", stdout: failed("Resource has been exhausted (e.g. check quota)."), exit: 1, kind: ErrUsageLimit, err: "Resource"},
		{name: "exit 55", stdout: failed("untrusted"), exit: 55, kind: ErrFatal, hint: "trust", err: "untrusted"},
		{name: "not trusted", stdout: failed("Gemini CLI is not running in a trusted directory"), exit: 1, kind: ErrFatal, hint: "trust", err: "trusted"},
		{name: "exit 52", stdout: failed("bad settings"), exit: 52, kind: ErrFatal, hint: "settings.json", err: "settings"},
		{name: "exit 42", stdout: failed("bad input"), exit: 42, kind: ErrFatal, hint: "refused its input", err: "input"},
		{name: "exit 500&0xFF", stdout: failed("internal"), exit: 500 & 0xFF, kind: ErrOutage, err: "internal"},
		{name: "fetch failed", stdout: failed("fetch failed"), exit: 1, kind: ErrOutage, err: "fetch"},
		{name: "something else", stdout: failed("[API Error: x (Status: 400)]"), exit: 1, kind: ErrTransient, err: "400"},
		{name: "an error event", stdout: jsonLine(t, map[string]any{"type": "error", "severity": "error", "message": "tool registry broke"}),
			exit: 1, kind: ErrTransient, err: "gemini: tool registry broke"},
		{name: "a result without an error", stdout: jsonLine(t, map[string]any{"type": "result", "status": "error"}), exit: 1,
			kind: ErrTransient, err: `gemini: the run ended with status "error"`},
		{name: "stderr", stderr: "YOLO mode is enabled.\nError: boom\n    at x (y.js:1)\n", exit: 1, kind: ErrTransient, err: "gemini: Error: boom"},
		{name: "nothing said", exit: 1, kind: ErrTransient, err: "gemini exited with status 1 without a result"},
		{name: "a successful result, exit 1", stdout: jsonLine(t, map[string]any{"type": "result", "status": "success"}), exit: 1,
			kind: ErrTransient, err: "gemini exited with status 1"},
	}
	checkClassified(t, rows, func(t *testing.T, r classifyRow) Outcome {
		o, _ := replayGemini(t, Config{}, []byte(r.stdout), proc.Result{ExitCode: r.exit}, r.stderr, classifyNow)
		return o
	})
}

func TestOpencodeErrorTable(t *testing.T) {
	const creds, model, billing = "opencode auth login", "--model", "no credit left"
	event := func(name, msg string, status int, body string, headers map[string]string) string {
		data := map[string]any{"message": msg, "statusCode": status, "responseBody": body}
		if headers != nil {
			data["responseHeaders"] = headers
		}
		return jsonLine(t, map[string]any{"type": "error", "error": map[string]any{"name": name, "data": data}})
	}
	rows := []classifyRow{
		{name: "usage_limit_reached with resets_in_seconds", stdout: event("APIError", "The usage limit has been reached", 429,
			`{"error":{"type":"usage_limit_reached","resets_in_seconds":120}}`, nil), exit: 1, kind: ErrUsageLimit, err: "usage limit",
			reset: classifyNow.Add(120 * time.Second)},
		{name: "anthropic unified status rejected", stdout: event("APIError", "limited", 429, "", map[string]string{
			"Anthropic-Ratelimit-Unified-Status": "rejected", "anthropic-ratelimit-unified-reset": "1795345200"}), exit: 1,
			kind: ErrUsageLimit, err: "limited", reset: time.Unix(1795345200, 0)},
		{name: "anthropic unified status rejected, without a 429", stdout: event("APIError", "limited", 0, "", map[string]string{
			"Anthropic-Ratelimit-Unified-Status": "rejected", "anthropic-ratelimit-unified-reset": "1795345200"}), exit: 1,
			kind: ErrUsageLimit, err: "limited", reset: time.Unix(1795345200, 0)},
		{name: "claude's limit text", stdout: event("APIError", "You've hit your limit · resets 5pm (UTC)", 0, "", nil), exit: 1,
			kind: ErrUsageLimit, err: "hit your limit", reset: time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC), within: time.Minute},
		{name: "usage_not_included, reset from the headers", stdout: event("APIError", "usage_not_included", 0, "",
			map[string]string{"retry-after": "60"}), exit: 1, kind: ErrUsageLimit, err: "usage_not_included", reset: classifyNow.Add(time.Minute)},
		{name: "429 with a delay in the text", stdout: event("APIError", "Rate limited, try again in 45s", 429, "", nil), exit: 1,
			kind: ErrUsageLimit, err: "(HTTP 429)", reset: classifyNow.Add(45 * time.Second)},
		{name: "rate_limit_error", stdout: event("APIError", "x", 0, `{"type":"rate_limit_error"}`, nil), exit: 1, kind: ErrUsageLimit, err: "opencode: x"},
		{name: "ProviderAuthError", stdout: event("ProviderAuthError", "", 0, "", nil), exit: 1, kind: ErrFatal, hint: creds, err: "ProviderAuthError"},
		{name: "401", stdout: event("APIError", "no", 401, "", nil), exit: 1, kind: ErrFatal, hint: creds, err: "(HTTP 401)"},
		{name: "authentication_error", stdout: event("APIError", "authentication_error", 0, "", nil), exit: 1, kind: ErrFatal, hint: creds, err: "authentication_error"},
		{name: "invalid api key", stdout: event("APIError", "Invalid API Key", 0, "", nil), exit: 1, kind: ErrFatal, hint: creds, err: "Invalid"},
		{name: "invalid x-api-key", stdout: event("APIError", "invalid x-api-key", 0, "", nil), exit: 1, kind: ErrFatal, hint: creds, err: "x-api-key"},
		{name: "incorrect api key", stdout: event("APIError", "Incorrect API key provided", 0, "", nil), exit: 1, kind: ErrFatal, hint: creds, err: "Incorrect"},
		{name: "403", stdout: event("APIError", "no", 403, "", nil), exit: 1, kind: ErrFatal, hint: "refused access", err: "(HTTP 403)"},
		{name: "ModelNotFoundError", stdout: event("ProviderModelNotFoundError", "x", 0, "", nil), exit: 1, kind: ErrFatal, hint: model, err: "x"},
		{name: "404", stdout: event("APIError", "no", 404, "", nil), exit: 1, kind: ErrFatal, hint: model, err: "(HTTP 404)"},
		{name: "model not found", stdout: event("APIError", "Model Not Found", 0, "", nil), exit: 1, kind: ErrFatal, hint: model, err: "Model"},
		{name: "not_found_error", stdout: event("APIError", "x", 0, `{"type":"not_found_error"}`, nil), exit: 1, kind: ErrFatal, hint: model, err: "x"},
		{name: "402", stdout: event("APIError", "pay", 402, "", nil), exit: 1, kind: ErrFatal, hint: billing, err: "(HTTP 402)"},
		{name: "credit balance", stdout: event("APIError", "Your credit balance is too low", 400, "", nil), exit: 1, kind: ErrFatal, hint: billing, err: "credit"},
		{name: "billing_error", stdout: event("APIError", "x", 400, `{"type":"billing_error"}`, nil), exit: 1, kind: ErrFatal, hint: billing, err: "x"},
		{name: "500", stdout: event("APIError", "oops", 500, "", nil), exit: 1, kind: ErrOutage, err: "(HTTP 500)"},
		{name: "overloaded", stdout: event("APIError", "Overloaded", 0, "", nil), exit: 1, kind: ErrOutage, err: "Overloaded"},
		{name: "something else", stdout: event("APIError", "bad request", 400, "", nil), exit: 1, kind: ErrTransient, err: "bad request (HTTP 400)"},
		{name: "explained by the log", stdout: jsonLine(t, map[string]any{"type": "error", "error": map[string]any{"name": "UnknownError",
			"data": map[string]any{"message": "UnknownError ref=err_1", "ref": "err_1"}}}),
			stderr: `timestamp=1 level=ERROR ref=err_1 error="Invalid API key"` + "\n", exit: 1, kind: ErrFatal, hint: creds, err: "opencode: Invalid API key"},
		{name: "usage printed", stderr: "opencode run [message..]\n\nrun opencode with a message\n", exit: 1, kind: ErrFatal,
			hint: "1.18", err: "printed its usage"},
		{name: "stderr", stderr: "boom\n", exit: 2, kind: ErrTransient, err: "opencode exited with status 2: boom"},
		{name: "nothing said", exit: 2, kind: ErrTransient, err: "opencode exited with status 2"},
	}
	checkClassified(t, rows, func(t *testing.T, r classifyRow) Outcome {
		a := &opencode{cliAdapter{now: func() time.Time { return classifyNow }}}
		o, _ := replayOpencode(t, a, []byte(r.stdout), []byte(r.stderr), proc.Result{ExitCode: r.exit})
		return o
	})
}

func TestAiderErrorTable(t *testing.T) {
	const key, model, billing = "API key aider uses", "--model", "no credit left"
	rows := []classifyRow{
		{name: "usage limit", stdout: "litellm.RateLimitError: You've hit your limit · resets 5pm (UTC)\n", kind: ErrUsageLimit,
			err: "RateLimitError", reset: time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC), within: time.Minute},
		{name: "usage_limit_reached", stdout: `litellm.APIError: {"type":"usage_limit_reached","resets_at":1795345200}` + "\n", kind: ErrUsageLimit,
			err: "APIError", reset: time.Unix(1795345200, 0)},
		{name: "rate limit with a delay", stdout: "litellm.RateLimitError: slow down, try again in 20s\nThe API provider has rate limited you. Try again later or check your quotas.\n",
			kind: ErrUsageLimit, err: "(The API provider has rate limited you", reset: classifyNow.Add(20 * time.Second)},
		{name: "rate limit", stdout: "litellm.RateLimitError: slow down\n", kind: ErrUsageLimit, err: "slow down"},
		{name: "authentication", stdout: "litellm.AuthenticationError: bad key\n", kind: ErrFatal, hint: key, err: "bad key"},
		{name: "permission denied", stdout: "litellm.PermissionDeniedError: nope\n", kind: ErrFatal, hint: key, err: "nope"},
		{name: "not found", stdout: "litellm.NotFoundError: x\n", kind: ErrFatal, hint: model, err: "NotFoundError"},
		{name: "no provider", stdout: "litellm.BadRequestError: LLM Provider NOT provided\n", kind: ErrFatal, hint: model, err: "Provider"},
		{name: "no provider, other case, is not aider's message", stdout: "litellm.BadRequestError: llm provider not provided\n", kind: ErrTransient, err: "provider"},
		{name: "model_not_found", stdout: "litellm.BadRequestError: model_not_found\n", kind: ErrFatal, hint: model, err: "model_not_found"},
		{name: "not_found_error", stdout: "litellm.BadRequestError: not_found_error\n", kind: ErrFatal, hint: model, err: "not_found_error"},
		{name: "does not exist", stdout: "litellm.BadRequestError: The model Does Not Exist\n", kind: ErrFatal, hint: model, err: "Exist"},
		{name: "invalid model", stdout: "litellm.BadRequestError: invalid model name\n", kind: ErrFatal, hint: model, err: "invalid model"},
		{name: "credit balance", stdout: "litellm.BadRequestError: Your credit balance is too low\n", kind: ErrFatal, hint: billing, err: "credit"},
		{name: "insufficient_quota", stdout: "litellm.BadRequestError: insufficient_quota\n", kind: ErrFatal, hint: billing, err: "insufficient_quota"},
		{name: "overloaded", stdout: "litellm.InternalServerError: Overloaded\n", kind: ErrOutage, err: "Overloaded"},
		{name: "service unavailable", stdout: "litellm.ServiceUnavailableError: x\n", kind: ErrOutage, err: "ServiceUnavailableError"},
		{name: "something else", stdout: "litellm.BadRequestError: bad request\n", kind: ErrTransient, err: "aider: BadRequestError: bad request"},
		{name: "context window", stdout: "Model x has hit a token limit!\nInput tokens: ~9,120 of 8,192 -- possibly exhausted context window!\n",
			kind: ErrFatal, hint: "context window", err: "token limit (Input tokens: ~9,120 of 8,192"},
		{name: "output limit", stdout: "Model x has hit a token limit!\nOutput tokens: ~2,100 of 2,048 -- possibly exceeded output limit!\n",
			kind: ErrTransient, err: "token limit (Output tokens"},
		{name: "unrecognized arguments", stderr: "aider: error: unrecognized arguments: --bogus\n", exit: 2, kind: ErrFatal, hint: "--agent-arg", err: "unrecognized"},
		{name: "bad argument", stderr: "aider: error: argument --model: expected one argument\n", exit: 2, kind: ErrFatal, hint: "--agent-arg", err: "expected"},
		{name: "stderr", stderr: "Traceback: boom\n", exit: 1, kind: ErrTransient, err: "aider exited with status 1: Traceback: boom"},
		{name: "nothing said", exit: 1, kind: ErrTransient, err: "aider exited with status 1"},
	}
	checkClassified(t, rows, func(t *testing.T, r classifyRow) Outcome {
		a := &aider{cliAdapter{now: func() time.Time { return classifyNow }}}
		o, _ := replayAider(t, a, []byte(r.stdout), "", proc.Result{ExitCode: r.exit}, r.stderr)
		return o
	})
}

func TestAmpErrorTable(t *testing.T) {
	const credits, key = "add credits", "AMP_API_KEY"
	errResult := func(msg string) string {
		return jsonLine(t, map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true, "num_turns": 1, "error": msg})
	}
	rows := []classifyRow{
		{name: "claude's limit text", stdout: errResult("You've hit your limit · resets 5pm (UTC)"), exit: 1, kind: ErrUsageLimit,
			err: "amp: You've hit", reset: time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC), within: time.Minute},
		{name: "out of free credits", stdout: errResult("Out of free credits"), exit: 1, kind: ErrUsageLimit, hint: credits, err: "credits"},
		{name: "out of credits", stderr: "Error: You are out of credits\n", exit: 1, kind: ErrUsageLimit, hint: credits, err: "amp: You are out"},
		{name: "insufficient credit", stderr: "Insufficient credit\n", exit: 1, kind: ErrUsageLimit, hint: credits, err: "Insufficient"},
		{name: "insufficient balance", stderr: "insufficient balance\n", exit: 1, kind: ErrUsageLimit, hint: credits, err: "balance"},
		{name: "usage limit", stderr: "Usage limit reached\n", exit: 1, kind: ErrUsageLimit, hint: credits, err: "Usage"},
		{name: "no api key", stdout: "No API key found\n", exit: 1, kind: ErrFatal, hint: key, err: "amp: No API key found"},
		{name: "login failed", stderr: "Login failed\n", exit: 1, kind: ErrFatal, hint: key, err: "Login"},
		{name: "not logged in", stderr: "Not logged in\n", exit: 1, kind: ErrFatal, hint: key, err: "logged"},
		{name: "unauthorized", stderr: "401 Unauthorized\n", exit: 1, kind: ErrFatal, hint: key, err: "Unauthorized"},
		{name: "invalid api key", stderr: "Invalid API key\n", exit: 1, kind: ErrFatal, hint: key, err: "Invalid"},
		{name: "invalid access token", stderr: "invalid access token\n", exit: 1, kind: ErrFatal, hint: key, err: "token"},
		{name: "authentication", stderr: "Authentication error\n", exit: 1, kind: ErrFatal, hint: key, err: "Authentication"},
		{name: "unknown option", stderr: "error: unknown option '--x'\n", exit: 1, kind: ErrFatal, hint: "refused its command line", err: "unknown option"},
		{name: "unknown command", stderr: "error: unknown command 'x'\n", exit: 1, kind: ErrFatal, hint: "refused its command line", err: "unknown command"},
		{name: "too many arguments", stderr: "error: too many arguments\n", exit: 1, kind: ErrFatal, hint: "refused its command line", err: "too many"},
		{name: "invalid mode", stderr: "Invalid mode: turbo\n", exit: 1, kind: ErrFatal, hint: "agent mode", err: "Invalid mode"},
		{name: "unknown mode", stderr: "unknown mode turbo\n", exit: 1, kind: ErrFatal, hint: "agent mode", err: "unknown mode"},
		{name: "mode not found", stderr: "mode not found\n", exit: 1, kind: ErrFatal, hint: "agent mode", err: "mode not found"},
		{name: "overloaded", stdout: errResult("overloaded_error"), exit: 1, kind: ErrOutage, err: "overloaded"},
		{name: "outage words in stderr only are not the error", stdout: errResult("tool failed"), stderr: "Overloaded\n", exit: 1,
			kind: ErrTransient, err: "amp: tool failed"},
		{name: "the result's text", stdout: jsonLine(t, map[string]any{"type": "result", "is_error": true, "num_turns": 1, "result": "it broke"}),
			exit: 1, kind: ErrTransient, err: "amp: it broke"},
		{name: "the result's reasons", stdout: jsonLine(t, map[string]any{"type": "result", "is_error": true, "num_turns": 1, "errors": []string{"a", "b"}}),
			exit: 1, kind: ErrTransient, err: "amp: a; b"},
		{name: "nothing said", exit: 1, kind: ErrTransient, err: "amp exited with status 1 without a result"},
		{name: "a result, nothing said", stdout: jsonLine(t, map[string]any{"type": "result", "is_error": false, "num_turns": 1}), exit: 1,
			kind: ErrTransient, err: "amp exited with status 1"},
	}
	checkClassified(t, rows, func(t *testing.T, r classifyRow) Outcome {
		a := &amp{cliAdapter{now: func() time.Time { return classifyNow }}}
		o, _ := replayAmp(t, a, []byte(r.stdout), proc.Result{ExitCode: r.exit}, r.stderr)
		return o
	})
}

func TestCursorErrorTable(t *testing.T) {
	const model, login, cmdline = "--list-models", "CURSOR_API_KEY", "refused its command line"
	errResult := func(msg string) string {
		return jsonLine(t, map[string]any{"type": "result", "subtype": "error", "is_error": true, "error": msg})
	}
	local := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.Local) }
	rows := []classifyRow{
		{name: "workspace trust", stderr: "Workspace Trust Required\n", exit: 0, kind: ErrFatal, hint: "--trust", err: "Trust"},
		{name: "usage limit, cycle end", stderr: "You've hit your usage limit. Your usage limits will reset when your monthly cycle ends on 12/17/2026.\n",
			exit: 1, kind: ErrUsageLimit, err: "usage limit", reset: local(2026, 12, 17), within: 24 * time.Hour},
		{name: "usage limit, claude's time", stderr: "Usage limit reached. You've hit your limit · resets 5pm (UTC)\n", exit: 1, kind: ErrUsageLimit,
			err: "Usage limit", reset: time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC), within: time.Minute},
		{name: "free requests", stderr: "free requests limit\n", exit: 1, kind: ErrUsageLimit, err: "free"},
		{name: "spend limit", stdout: errResult("spend limit reached"), exit: 1, kind: ErrUsageLimit, err: "cursor-agent: spend limit"},
		{name: "cannot use this model", stderr: "Cannot use this model: x\n", exit: 1, kind: ErrFatal, hint: model, err: "Cannot"},
		{name: "invalid model", stderr: "invalid model\n", exit: 1, kind: ErrFatal, hint: model, err: "invalid"},
		{name: "model not found", stderr: "Model not found\n", exit: 1, kind: ErrFatal, hint: model, err: "found"},
		{name: "not available", stderr: "x is not available or invalid\n", exit: 1, kind: ErrFatal, hint: model, err: "available"},
		{name: "not on your plan", stderr: "not available on your plan\n", exit: 1, kind: ErrFatal, hint: model, err: "plan"},
		{name: "not logged in", stderr: "Not logged in\n", exit: 1, kind: ErrFatal, hint: login, err: "logged"},
		{name: "authentication required", stderr: "Authentication required\n", exit: 1, kind: ErrFatal, hint: login, err: "Authentication"},
		{name: "unauthorized", stderr: "Unauthorized\n", exit: 1, kind: ErrFatal, hint: login, err: "Unauthorized"},
		{name: "invalid api key", stderr: "Invalid API key\n", exit: 1, kind: ErrFatal, hint: login, err: "Invalid"},
		{name: "api key is invalid", stderr: "The API key is invalid\n", exit: 1, kind: ErrFatal, hint: login, err: "invalid"},
		{name: "cursor-agent login", stderr: "run cursor-agent login\n", exit: 1, kind: ErrFatal, hint: login, err: "login"},
		{name: "please log in", stderr: "Please log in\n", exit: 1, kind: ErrFatal, hint: login, err: "log in"},
		{name: "unknown option", stderr: "error: unknown option '--x'\n", exit: 1, kind: ErrFatal, hint: cmdline, err: "option"},
		{name: "unknown command", stderr: "error: unknown command 'x'\n", exit: 1, kind: ErrFatal, hint: cmdline, err: "command"},
		{name: "too many arguments", stderr: "error: too many arguments\n", exit: 1, kind: ErrFatal, hint: cmdline, err: "arguments"},
		{name: "outage", stdout: errResult("Connection refused"), exit: 1, kind: ErrOutage, err: "cursor-agent: Connection refused"},
		{name: "a plain stdout line", stdout: "Something broke\n", exit: 1, kind: ErrTransient, err: "cursor-agent: Something broke"},
		{name: "nothing said", exit: 1, kind: ErrTransient, err: "cursor-agent exited with status 1 without a result"},
		{name: "a result, nothing said", stdout: jsonLine(t, map[string]any{"type": "result", "is_error": false}), exit: 1,
			kind: ErrTransient, err: "cursor-agent exited with status 1"},
	}
	checkClassified(t, rows, func(t *testing.T, r classifyRow) Outcome {
		a := &cursor{cliAdapter{now: func() time.Time { return classifyNow }}}
		o, _ := replayCursor(t, a, []byte(r.stdout), proc.Result{ExitCode: r.exit}, r.stderr)
		return o
	})
}

// isText checks that got holds want. An empty want means that got must be
// empty: a row that names no error or hint asserts there is none, never
// "anything" (strings.Contains(x, "") is always true).
func isText(is *is.I, got, want string) {
	is.Helper()
	if want == "" {
		is.Equal(got, "") // none expected
		return
	}
	is.True(strings.Contains(got, want)) // want is in got
}

// want is what a replayed run must come to. Empty texts mean none (see
// isText); costs are figures worked out by hand.
type want struct {
	kind      ErrorKind
	final     string
	steps     int
	usage     Usage
	cost      float64
	costKnown bool
	err, hint string
	resetAt   time.Time
}

func (w want) check(is *is.I, o Outcome) {
	is.Helper()
	is.Equal(o.ErrKind, w.kind)                           // error kind
	is.Equal(o.FinalMessage, w.final)                     // final message
	is.Equal(o.Steps, w.steps)                            // steps
	is.Equal(o.Usage, w.usage)                            // usage
	is.Equal(o.CostKnown, w.costKnown)                    // whether the cost is known
	is.True(o.Cost > w.cost-1e-9 && o.Cost < w.cost+1e-9) // cost
	isText(is, o.Err, w.err)
	isText(is, o.Hint, w.hint)
	is.True(o.ResetAt.Equal(w.resetAt)) // reset time
	is.Equal(o.Failed(), w.kind != ErrNone)
}
