package stubmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// chatAnswer answers a Chat Completions request (POST /v1/chat/completions)
// with turn t: one chat.completion object, or, when the request asks for
// stream:true, chat.completion.chunk events ending with "data: [DONE]". The
// turn's text is the assistant message's content; its tool calls are
// function tool_calls with Args as JSON arguments; its usage is reported as
// prompt_tokens (cached tokens included, as OpenAI counts them, and
// repeated in prompt_tokens_details) and completion_tokens. A streamed
// answer carries the usage in its last chunk when the request asked for it
// (stream_options.include_usage), as OpenAI does.
func (p *openaiProtocol) chatAnswer(w http.ResponseWriter, req Request, t Turn) {
	var in struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	_ = json.Unmarshal(req.Body, &in)

	var calls []any
	for i, c := range t.ToolCalls {
		args, _ := json.Marshal(c.Args)
		calls = append(calls, map[string]any{"index": i, "id": fmt.Sprintf("call_stub_%d", p.calls.Add(1)), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(args)}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	usage := map[string]any{
		"prompt_tokens":         t.Usage.Input + t.Usage.CachedInput,
		"completion_tokens":     t.Usage.Output,
		"total_tokens":          t.Usage.Input + t.Usage.CachedInput + t.Usage.Output,
		"prompt_tokens_details": map[string]any{"cached_tokens": t.Usage.CachedInput},
	}
	base := func(object string) map[string]any {
		return map[string]any{"id": "chatcmpl-stub", "object": object, "created": 1767225600, "model": in.Model}
	}

	if !in.Stream {
		msg := map[string]any{"role": "assistant", "content": t.Text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		resp := base("chat.completion")
		resp["choices"] = []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}
		resp["usage"] = usage
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	chunk := func(delta map[string]any, finish any) {
		c := base("chat.completion.chunk")
		c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		chatData(w, c)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if t.Text != "" {
		chunk(map[string]any{"content": t.Text}, nil)
	}
	if len(calls) > 0 {
		chunk(map[string]any{"tool_calls": calls}, nil)
	}
	chunk(map[string]any{}, finish)
	if in.StreamOptions.IncludeUsage {
		c := base("chat.completion.chunk")
		c["choices"] = []any{}
		c["usage"] = usage
		chatData(w, c)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// chatData writes one Chat Completions stream chunk and flushes it.
func chatData(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
