package stubmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Anthropic starts a stub speaking the Anthropic Messages API as Claude Code
// uses it: HEAD / (a connectivity probe), then POST /v1/messages?beta=true
// with stream:true, answered with Server-Sent Events (a request without
// stream:true gets one JSON message). Point Claude Code at it with
// ANTHROPIC_BASE_URL=URL and any ANTHROPIC_API_KEY.
//
// A Turn's ToolCalls become tool_use blocks (Claude's file-writing tool is
// "Write" {file_path (absolute), content}); its Usage.Input is reported as
// uncached input_tokens and Usage.CachedInput as cache_read_input_tokens. A
// Turn with Status answers with that HTTP status and ErrorBody, or with
// AnthropicErrorBody(Status). Header is added to either kind of answer.
func Anthropic(t testing.TB, r Responder) *Server {
	t.Helper()
	return start(t, &anthropicProtocol{}, r)
}

type anthropicProtocol struct {
	ids atomic.Int64 // numbers message and tool-use ids over the server's life
}

func (*anthropicProtocol) isGeneration(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages")
}

func (*anthropicProtocol) housekeeping(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodHead || r.URL.Path == "/":
		w.WriteHeader(http.StatusOK)
	case strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens":100}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, AnthropicErrorBody(http.StatusNotFound))
	}
}

// AnthropicErrorBody returns the body the Anthropic API sends with status,
// in the {"type":"error","error":{"type","message"}} shape.
func AnthropicErrorBody(status int) string {
	typ, msg := "api_error", "Internal server error"
	switch status {
	case http.StatusBadRequest:
		typ, msg = "invalid_request_error", "Invalid request"
	case http.StatusUnauthorized:
		typ, msg = "authentication_error", "invalid x-api-key"
	case http.StatusForbidden:
		typ, msg = "permission_error", "Your API key does not have permission to use the specified resource."
	case http.StatusNotFound:
		typ, msg = "not_found_error", "model: stub-missing"
	case http.StatusRequestEntityTooLarge:
		typ, msg = "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case http.StatusTooManyRequests:
		typ, msg = "rate_limit_error", "This request would exceed your account's rate limit. Please try again later."
	case 529:
		typ, msg = "overloaded_error", "Overloaded"
	}
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	return string(b)
}

// AnthropicUsageLimitHeader returns the headers with which the Anthropic API
// tells a subscription's client that its unified usage limit is reached
// (status rejected) and when it resets; send them with a 429.
func AnthropicUsageLimitHeader(resetsAt time.Time) http.Header {
	reset := strconv.FormatInt(resetsAt.Unix(), 10)
	h := http.Header{}
	h.Set("anthropic-ratelimit-unified-status", "rejected")
	h.Set("anthropic-ratelimit-unified-reset", reset)
	h.Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
	h.Set("anthropic-ratelimit-unified-5h-status", "rejected")
	h.Set("anthropic-ratelimit-unified-5h-reset", reset)
	h.Set("anthropic-ratelimit-unified-5h-utilization", "1.0")
	h.Set("anthropic-ratelimit-unified-fallback", "unavailable")
	return h
}

func (p *anthropicProtocol) answer(w http.ResponseWriter, req Request, t Turn) {
	for k, vs := range t.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("request-id", fmt.Sprintf("req_stub_%d", p.ids.Add(1)))
	if t.Status != 0 && t.Status != http.StatusOK {
		body := t.ErrorBody
		if body == "" {
			body = AnthropicErrorBody(t.Status)
		}
		w.Header().Set("Content-Type", "application/json")
		if w.Header().Get("x-should-retry") == "" {
			w.Header().Set("x-should-retry", "false")
		}
		w.WriteHeader(t.Status)
		fmt.Fprint(w, body)
		return
	}

	var in struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(req.Body, &in)
	msgID := fmt.Sprintf("msg_stub_%d", p.ids.Add(1))
	usage := map[string]any{
		"input_tokens":                t.Usage.Input,
		"cache_creation_input_tokens": 0,
		"cache_read_input_tokens":     t.Usage.CachedInput,
		"output_tokens":               t.Usage.Output,
	}
	var blocks []map[string]any
	if t.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": t.Text})
	}
	for _, c := range t.ToolCalls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		blocks = append(blocks, map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_stub_%d", p.ids.Add(1)), "name": c.Name, "input": args,
		})
	}
	stop := "end_turn"
	if len(t.ToolCalls) > 0 {
		stop = "tool_use"
	}

	if !in.Stream {
		w.Header().Set("Content-Type", "application/json")
		if blocks == nil {
			blocks = []map[string]any{}
		}
		b, _ := json.Marshal(map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": in.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		_, _ = w.Write(b)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	startUsage := map[string]any{}
	for k, v := range usage {
		startUsage[k] = v
	}
	startUsage["output_tokens"] = min(1, t.Usage.Output)
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": in.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage,
	}})
	event("ping", map[string]any{"type": "ping"})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			js, _ := json.Marshal(b["input"])
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(js)}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": t.Usage.Output}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
