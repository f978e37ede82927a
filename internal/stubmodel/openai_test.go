package stubmodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// sseEvents reads an SSE body into its events' names and data.
func sseEvents(t *testing.T, r io.Reader) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
			data = append(data, m)
		}
	}
	return names, data
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestOpenAIStream(t *testing.T) {
	is := is.New(t)
	s := OpenAI(t, Sequence(
		Turn{Text: "hello", Usage: Usage{Input: 10, CachedInput: 5, Output: 3}},
		Turn{ToolCalls: []ToolCall{
			{Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch\n"},
			{Name: "exec_command", Args: map[string]any{"cmd": "ls"}},
		}},
	))

	resp := post(t, s.URL+"/v1/responses", `{"model":"gpt-5.5","stream":true}`)
	is.Equal(resp.StatusCode, 200)
	is.Equal(resp.Header.Get("Content-Type"), "text/event-stream")
	names, data := sseEvents(t, resp.Body)
	is.Equal(names, []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.completed"})
	for i, d := range data {
		is.Equal(d["type"], names[i])              // each data names its event
		is.Equal(d["sequence_number"], float64(i)) // numbered in order
	}
	done := data[len(data)-1]["response"].(map[string]any)
	is.Equal(done["model"], "gpt-5.5")
	usage := done["usage"].(map[string]any)
	is.Equal(usage["input_tokens"], float64(15)) // cached tokens are part of the input
	is.Equal(usage["input_tokens_details"].(map[string]any)["cached_tokens"], float64(5))
	is.Equal(usage["output_tokens"], float64(3))
	item := data[7]["item"].(map[string]any)
	is.Equal(item["content"].([]any)[0].(map[string]any)["text"], "hello")

	resp = post(t, s.URL+"/v1/responses", `{"model":"gpt-5.5"}`)
	names, data = sseEvents(t, resp.Body)
	is.Equal(names[len(names)-1], "response.completed")
	var items []map[string]any
	for i, n := range names {
		if n == "response.output_item.done" {
			items = append(items, data[i]["item"].(map[string]any))
		}
	}
	is.Equal(len(items), 2)
	is.Equal(items[0]["type"], "custom_tool_call")
	is.Equal(items[0]["name"], "apply_patch")
	is.Equal(items[0]["input"], "*** Begin Patch\n*** End Patch\n")
	is.Equal(items[1]["type"], "function_call")
	is.Equal(items[1]["name"], "exec_command")
	is.Equal(items[1]["arguments"], `{"cmd":"ls"}`)
	is.True(items[0]["call_id"] != items[1]["call_id"]) // call ids are unique

	is.Equal(len(s.Requests()), 2)
	is.Equal(s.Requests()[0].Path, "/v1/responses")
}

func TestOpenAIErrors(t *testing.T) {
	is := is.New(t)
	s := OpenAI(t, Sequence(
		Turn{Status: 401},
		Turn{Status: 429, ErrorBody: OpenAIUsageLimitBody(1900000000), Header: http.Header{"Retry-After": {"60"}}},
	))
	resp := post(t, s.URL+"/v1/responses", `{}`)
	is.Equal(resp.StatusCode, 401)
	var body struct {
		Error struct{ Message, Type, Code string }
	}
	is.NoErr(json.NewDecoder(resp.Body).Decode(&body))
	is.Equal(body.Error.Code, "invalid_api_key")

	resp = post(t, s.URL+"/v1/responses", `{}`)
	is.Equal(resp.StatusCode, 429)
	is.Equal(resp.Header.Get("Retry-After"), "60")
	var limit struct {
		Error struct {
			Type     string
			ResetsAt int64 `json:"resets_at"`
		}
	}
	is.NoErr(json.NewDecoder(resp.Body).Decode(&limit))
	is.Equal(limit.Error.Type, "usage_limit_reached")
	is.Equal(limit.Error.ResetsAt, int64(1900000000))

	for _, st := range []int{403, 404, 429, 500, 503} {
		var e struct {
			Error struct{ Message string }
		}
		is.NoErr(json.Unmarshal([]byte(OpenAIErrorBody(st)), &e))
		is.True(e.Error.Message != "")
	}
	is.True(strings.Contains(OpenAIErrorBody(429), "insufficient_quota"))
	is.True(!strings.Contains(OpenAIUsageLimitBody(0), "resets_at"))
}

func TestOpenAIHousekeeping(t *testing.T) {
	is := is.New(t)
	s := OpenAI(t, func(int, Request) Turn { t.Error("no generation expected"); return Turn{} })
	resp, err := http.Get(s.URL + "/v1/models")
	is.NoErr(err)
	resp.Body.Close()
	is.Equal(resp.StatusCode, 200)
	resp, err = http.Get(s.URL + "/elsewhere")
	is.NoErr(err)
	resp.Body.Close()
	is.Equal(resp.StatusCode, 404)

	cfg := s.CodexConfig("gpt-5.5")
	is.True(strings.Contains(cfg, `model = "gpt-5.5"`))
	is.True(strings.Contains(cfg, `base_url = "`+s.URL+`/v1"`))
	is.True(strings.Contains(cfg, `env_key = "STUB_API_KEY"`))
}

func TestOpenAIChatCompletions(t *testing.T) {
	is := is.New(t)
	s := OpenAI(t, Sequence(
		Turn{Text: "calc.go\n```go\npackage calc\n```\n", Usage: Usage{Input: 1000, CachedInput: 200, Output: 50}},
		Turn{Text: "streamed", Usage: Usage{Input: 7, Output: 2}},
		Turn{ToolCalls: []ToolCall{{Name: "write_file", Args: map[string]any{"path": "a.txt"}}}},
		Turn{Status: 400},
		Turn{Status: 429, ErrorBody: OpenAIRateLimitBody()},
	))

	// Not streamed: one chat.completion object.
	resp := post(t, s.URL+"/v1/chat/completions", `{"model":"stub-model","messages":[{"role":"user","content":"hi"}]}`)
	is.Equal(resp.StatusCode, 200)
	var c struct {
		Object  string
		Model   string
		Choices []struct {
			Message struct {
				Role, Content string
			}
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			CompletionTokens    int `json:"completion_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		}
	}
	is.NoErr(json.NewDecoder(resp.Body).Decode(&c))
	is.Equal(c.Object, "chat.completion")
	is.Equal(c.Model, "stub-model")
	is.Equal(len(c.Choices), 1)
	is.Equal(c.Choices[0].Message.Role, "assistant")
	is.Equal(c.Choices[0].Message.Content, "calc.go\n```go\npackage calc\n```\n")
	is.Equal(c.Choices[0].FinishReason, "stop")
	is.Equal(c.Usage.PromptTokens, 1200) // cached tokens are part of the prompt's
	is.Equal(c.Usage.PromptTokensDetails.CachedTokens, 200)
	is.Equal(c.Usage.CompletionTokens, 50)

	// Streamed, with the usage asked for: chunks, the usage, then [DONE].
	resp = post(t, s.URL+"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`)
	is.Equal(resp.Header.Get("Content-Type"), "text/event-stream")
	body, err := io.ReadAll(resp.Body)
	is.NoErr(err)
	is.True(strings.HasSuffix(string(body), "data: [DONE]\n\n"))
	_, data := sseEvents(t, strings.NewReader(strings.TrimSuffix(string(body), "data: [DONE]\n\n")))
	var text string
	finishes := 0
	for _, d := range data[:len(data)-1] {
		is.Equal(d["object"], "chat.completion.chunk")
		ch := d["choices"].([]any)[0].(map[string]any)
		if s, ok := ch["delta"].(map[string]any)["content"].(string); ok {
			text += s
		}
		if ch["finish_reason"] != nil {
			finishes++
			is.Equal(ch["finish_reason"], "stop")
		}
	}
	is.Equal(text, "streamed")
	is.Equal(finishes, 1)
	last := data[len(data)-1]
	is.Equal(len(last["choices"].([]any)), 0)
	is.Equal(last["usage"].(map[string]any)["prompt_tokens"], 7.0)
	is.Equal(last["usage"].(map[string]any)["completion_tokens"], 2.0)

	// Tool calls, not streamed.
	resp = post(t, s.URL+"/v1/chat/completions", `{"model":"m"}`)
	var tc struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID, Type string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	is.NoErr(json.NewDecoder(resp.Body).Decode(&tc))
	is.Equal(tc.Choices[0].FinishReason, "tool_calls")
	is.Equal(len(tc.Choices[0].Message.ToolCalls), 1)
	is.Equal(tc.Choices[0].Message.ToolCalls[0].Function.Name, "write_file")
	is.Equal(tc.Choices[0].Message.ToolCalls[0].Function.Arguments, `{"path":"a.txt"}`)

	// Errors: the context window, and a rate limit.
	resp = post(t, s.URL+"/v1/chat/completions", `{}`)
	is.Equal(resp.StatusCode, 400)
	b, _ := io.ReadAll(resp.Body)
	is.True(strings.Contains(string(b), "context_length_exceeded"))
	resp = post(t, s.URL+"/v1/chat/completions", `{}`)
	is.Equal(resp.StatusCode, 429)
	b, _ = io.ReadAll(resp.Body)
	is.True(strings.Contains(string(b), "rate_limit_exceeded"))
	is.Equal(len(s.Generations(nil)), 5)
}
