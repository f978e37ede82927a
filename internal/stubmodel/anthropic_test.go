package stubmodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

type anthropicEvent struct {
	name string
	data map[string]any
}

func readAnthropicSSE(t *testing.T, r io.Reader) []anthropicEvent {
	t.Helper()
	var out []anthropicEvent
	var name string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if d["type"] != name {
				t.Fatalf("event %q carries type %v", name, d["type"])
			}
			out = append(out, anthropicEvent{name, d})
		}
	}
	return out
}

func postAnthropic(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/v1/messages?beta=true", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", "sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestAnthropicStream(t *testing.T) {
	is := is.New(t)
	s := Anthropic(t, Sequence(
		Turn{Text: "writing", ToolCalls: []ToolCall{{Name: "Write", Args: map[string]any{"file_path": "/w/a.txt", "content": "x"}}},
			Usage: Usage{Input: 10, CachedInput: 4, Output: 7}},
		Turn{Text: "done"},
	))

	head, err := http.Head(s.URL + "/")
	is.NoErr(err)
	head.Body.Close()
	is.Equal(head.StatusCode, 200)

	resp := postAnthropic(t, s.URL, `{"model":"claude-x","stream":true,"messages":[]}`)
	is.Equal(resp.StatusCode, 200)
	is.Equal(resp.Header.Get("Content-Type"), "text/event-stream")
	ev := readAnthropicSSE(t, resp.Body)
	var names []string
	for _, e := range ev {
		names = append(names, e.name)
	}
	is.Equal(names, []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"})
	msg := ev[0].data["message"].(map[string]any)
	is.Equal(msg["model"], "claude-x")
	usage := msg["usage"].(map[string]any)
	is.Equal(usage["input_tokens"], 10.0)
	is.Equal(usage["cache_read_input_tokens"], 4.0)
	is.Equal(ev[3].data["delta"], map[string]any{"type": "text_delta", "text": "writing"})
	block := ev[5].data["content_block"].(map[string]any)
	is.Equal(block["type"], "tool_use")
	is.Equal(block["name"], "Write")
	is.True(strings.HasPrefix(block["id"].(string), "toolu_"))
	delta := ev[6].data["delta"].(map[string]any)
	is.Equal(delta["type"], "input_json_delta")
	var input map[string]any
	is.NoErr(json.Unmarshal([]byte(delta["partial_json"].(string)), &input))
	is.Equal(input, map[string]any{"file_path": "/w/a.txt", "content": "x"})
	md := ev[8].data
	is.Equal(md["delta"].(map[string]any)["stop_reason"], "tool_use")
	is.Equal(md["usage"].(map[string]any)["output_tokens"], 7.0)

	// Not streamed: one JSON message.
	resp = postAnthropic(t, s.URL, `{"model":"claude-x","messages":[]}`)
	var m struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Text string
		} `json:"content"`
	}
	is.NoErr(json.NewDecoder(resp.Body).Decode(&m))
	is.Equal(m.Type, "message")
	is.Equal(m.StopReason, "end_turn")
	is.Equal(len(m.Content), 1)
	is.Equal(m.Content[0].Text, "done")

	gens := s.Generations(func(r Request) bool { return r.Method == http.MethodPost })
	is.Equal(len(gens), 2)
	is.Equal(gens[0].Header.Get("x-api-key"), "sk-test")
	is.Equal(gens[0].Path, "/v1/messages?beta=true")
}

func TestAnthropicErrors(t *testing.T) {
	is := is.New(t)
	reset := time.Unix(1795338261, 0)
	s := Anthropic(t, Sequence(
		Turn{Status: 401},
		Turn{Status: 529},
		Turn{Status: 500, ErrorBody: `{"type":"error","error":{"type":"api_error","message":"custom"}}`},
		Turn{Status: 429, Header: AnthropicUsageLimitHeader(reset)},
	))
	check := func(status int, typ, msg string) *http.Response {
		t.Helper()
		resp := postAnthropic(t, s.URL, `{"stream":true}`)
		is.Equal(resp.StatusCode, status)
		is.Equal(resp.Header.Get("x-should-retry"), "false")
		var e struct {
			Type  string `json:"type"`
			Error struct{ Type, Message string }
		}
		is.NoErr(json.NewDecoder(resp.Body).Decode(&e))
		is.Equal(e.Type, "error")
		is.Equal(e.Error.Type, typ)
		if msg != "" {
			is.Equal(e.Error.Message, msg)
		}
		return resp
	}
	check(401, "authentication_error", "invalid x-api-key")
	check(529, "overloaded_error", "Overloaded")
	check(500, "api_error", "custom")
	resp := check(429, "rate_limit_error", "")
	is.Equal(resp.Header.Get("anthropic-ratelimit-unified-status"), "rejected")
	is.Equal(resp.Header.Get("anthropic-ratelimit-unified-reset"), "1795338261")

	r, err := http.Post(s.URL+"/v1/messages/count_tokens", "application/json", strings.NewReader("{}"))
	is.NoErr(err)
	r.Body.Close()
	is.Equal(r.StatusCode, 200)
	is.Equal(len(s.Generations(func(r Request) bool { return strings.Contains(r.Path, "count_tokens") })), 1)
}
