package stubmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// OpenAI starts a stub speaking the OpenAI Responses API as Codex uses it:
// POST /v1/responses with stream:true, answered with Server-Sent Events.
// Point Codex at URL+"/v1" (see WriteCodexConfig). The same server answers
// POST /v1/chat/completions, the Chat Completions API that aider (through
// litellm) and most OpenAI-compatible clients speak, streamed or not (see
// chatAnswer).
//
// A Turn's ToolCalls become output items: "apply_patch" a custom_tool_call
// carrying Input (the patch text), any other name a function_call carrying
// Args as JSON arguments (e.g. "exec_command" {"cmd": "…"}). A Turn with
// Status answers with that HTTP status and ErrorBody, or an OpenAI-shaped
// default error body for the status.
func OpenAI(t testing.TB, r Responder) *Server {
	t.Helper()
	return start(t, &openaiProtocol{}, r)
}

type openaiProtocol struct {
	calls atomic.Int64 // numbers call ids, unique over the server's life
}

func (*openaiProtocol) isGeneration(r *http.Request) bool {
	return r.Method == http.MethodPost &&
		(strings.HasSuffix(r.URL.Path, "/responses") || strings.HasSuffix(r.URL.Path, "/chat/completions"))
}

func (*openaiProtocol) housekeeping(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[],"models":[]}`)
		return
	}
	http.NotFound(w, r)
}

// OpenAIErrorBody returns the body the OpenAI API sends with status, in the
// {"error":{message,type,param,code}} shape.
func OpenAIErrorBody(status int) string {
	typ, code, msg := "server_error", "", "The server had an error while processing your request."
	switch status {
	case http.StatusBadRequest:
		typ, code, msg = "invalid_request_error", "context_length_exceeded", "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages."
	case http.StatusUnauthorized:
		typ, code, msg = "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-stub. You can find your API key at https://platform.openai.com/account/api-keys."
	case http.StatusForbidden:
		typ, code, msg = "invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported"
	case http.StatusNotFound:
		typ, code, msg = "invalid_request_error", "model_not_found", "The model `stub-missing` does not exist or you do not have access to it."
	case http.StatusTooManyRequests:
		typ, code, msg = "insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."
	case http.StatusServiceUnavailable:
		typ, code, msg = "server_error", "server_is_overloaded", "The server is overloaded."
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nullable(code)}})
	return string(b)
}

// OpenAIRateLimitBody is the 429 body the OpenAI API sends when a
// per-minute rate limit is hit (as opposed to an exhausted quota, which
// OpenAIErrorBody(429) gives).
func OpenAIRateLimitBody() string {
	return `{"error":{"message":"Rate limit reached for stub-model in organization org-stub on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
}

// OpenAIUsageLimitBody is the 429 body ChatGPT-backed Codex gets when a
// plan's usage limit is reached; resetsAt is in Unix seconds (0: omitted).
func OpenAIUsageLimitBody(resetsAt int64) string {
	e := map[string]any{"type": "usage_limit_reached", "message": "The usage limit has been reached", "plan_type": "plus"}
	if resetsAt != 0 {
		e["resets_at"] = resetsAt
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return string(b)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (p *openaiProtocol) answer(w http.ResponseWriter, req Request, t Turn) {
	for k, vs := range t.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if t.Status != 0 {
		body := t.ErrorBody
		if body == "" {
			body = OpenAIErrorBody(t.Status)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(t.Status)
		fmt.Fprint(w, body)
		return
	}
	if strings.Contains(req.Path, "/chat/completions") {
		p.chatAnswer(w, req, t)
		return
	}
	var in struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(req.Body, &in)

	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	sse := &openaiSSE{w: w}
	resp := map[string]any{"id": "resp_stub", "object": "response", "status": "in_progress", "model": in.Model, "output": []any{}}
	sse.event("response.created", map[string]any{"type": "response.created", "response": resp})
	sse.event("response.in_progress", map[string]any{"type": "response.in_progress", "response": resp})

	var output []any
	idx := 0
	if t.Text != "" {
		id := fmt.Sprintf("msg_stub_%d", idx)
		sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": idx,
			"item": map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		sse.event("response.content_part.added", map[string]any{"type": "response.content_part.added", "item_id": id, "output_index": idx, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		sse.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": id, "output_index": idx, "content_index": 0, "delta": t.Text})
		sse.event("response.output_text.done", map[string]any{"type": "response.output_text.done", "item_id": id, "output_index": idx, "content_index": 0, "text": t.Text})
		part := map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}
		sse.event("response.content_part.done", map[string]any{"type": "response.content_part.done", "item_id": id, "output_index": idx, "content_index": 0, "part": part})
		item := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
		sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	for _, c := range t.ToolCalls {
		callID := fmt.Sprintf("call_stub_%d", p.calls.Add(1))
		var item map[string]any
		if c.Name == "apply_patch" || c.Input != "" {
			item = map[string]any{"id": fmt.Sprintf("ctc_stub_%d", idx), "type": "custom_tool_call", "status": "completed",
				"call_id": callID, "name": c.Name, "input": c.Input}
		} else {
			args, _ := json.Marshal(c.Args)
			item = map[string]any{"id": fmt.Sprintf("fc_stub_%d", idx), "type": "function_call", "status": "completed",
				"call_id": callID, "name": c.Name, "arguments": string(args)}
		}
		sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": idx, "item": item})
		sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": idx, "item": item})
		output = append(output, item)
		idx++
	}
	done := map[string]any{"id": "resp_stub", "object": "response", "status": "completed", "model": in.Model, "output": output,
		"usage": map[string]any{
			"input_tokens":          t.Usage.Input + t.Usage.CachedInput,
			"input_tokens_details":  map[string]any{"cached_tokens": t.Usage.CachedInput},
			"output_tokens":         t.Usage.Output,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens":          t.Usage.Input + t.Usage.CachedInput + t.Usage.Output,
		}}
	sse.event("response.completed", map[string]any{"type": "response.completed", "response": done})
}

// openaiSSE writes Responses API events and flushes each one.
type openaiSSE struct {
	w   http.ResponseWriter
	seq int
}

func (s *openaiSSE) event(name string, data map[string]any) {
	data["sequence_number"] = s.seq
	s.seq++
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// CodexConfig returns a $CODEX_HOME/config.toml that points Codex at s with
// the API key read from STUB_API_KEY, turns off everything that would reach
// outside hosts (update checks, analytics, feedback, plugins, apps) and
// disables Codex's own retries so that an error answer ends the run at once.
func (s *Server) CodexConfig(model string) string {
	return fmt.Sprintf(`model = %q
model_provider = "stub"
check_for_update_on_startup = false

[model_providers.stub]
name = "stub"
base_url = "%s/v1"
wire_api = "responses"
env_key = "STUB_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
`, model, s.URL)
}
