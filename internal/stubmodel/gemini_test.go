package stubmodel

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestGeminiStream(t *testing.T) {
	is := is.New(t)
	s := Gemini(t, Sequence(
		Turn{Text: "I will write the file now.", ToolCalls: []ToolCall{{Name: "write_file", Args: map[string]any{"file_path": "/w/a", "content": "x"}}},
			Usage: Usage{Input: 10, CachedInput: 4, Output: 2}},
	))
	resp := post(t, s.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", `{"contents":[]}`)
	is.Equal(resp.StatusCode, 200)
	is.Equal(resp.Header.Get("Content-Type"), "text/event-stream")
	names, chunks := sseEvents(t, resp.Body)
	is.Equal(len(names), 0)  // data-only events
	is.Equal(len(chunks), 3) // the text in two pieces, then the call

	var text string
	for i, c := range chunks {
		is.Equal(c["modelVersion"], "gemini-2.5-pro")
		cand := c["candidates"].([]any)[0].(map[string]any)
		part := cand["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)
		if i < 2 {
			text += part["text"].(string)
			is.Equal(cand["finishReason"], nil)
			is.Equal(c["usageMetadata"], nil)
			continue
		}
		call := part["functionCall"].(map[string]any)
		is.Equal(call["name"], "write_file")
		is.Equal(call["args"].(map[string]any)["file_path"], "/w/a")
		is.Equal(cand["finishReason"], "STOP")
		u := c["usageMetadata"].(map[string]any)
		is.Equal(u["promptTokenCount"], float64(14)) // cached tokens are part of the prompt
		is.Equal(u["cachedContentTokenCount"], float64(4))
		is.Equal(u["candidatesTokenCount"], float64(2))
	}
	is.Equal(text, "I will write the file now.")
}

func TestGeminiErrors(t *testing.T) {
	is := is.New(t)
	s := Gemini(t, Sequence(Turn{Status: 429}))
	resp := post(t, s.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", `{}`)
	is.Equal(resp.StatusCode, 429)
	var body struct {
		Error struct {
			Code    int
			Status  string
			Details []map[string]any
		}
	}
	is.NoErr(json.NewDecoder(resp.Body).Decode(&body))
	is.Equal(body.Error.Code, 429)
	is.Equal(body.Error.Status, "RESOURCE_EXHAUSTED")
	is.Equal(body.Error.Details[0]["@type"], "type.googleapis.com/google.rpc.QuotaFailure")

	for _, st := range []int{400, 401, 403, 404, 500, 503} {
		var e struct {
			Error struct {
				Code    int
				Message string
			}
		}
		is.NoErr(json.Unmarshal([]byte(GeminiErrorBody(st)), &e))
		is.Equal(e.Error.Code, st)
		is.True(e.Error.Message != "")
	}
	is.True(strings.Contains(GeminiQuotaBody("PerMinute", "37s"), `"retryDelay":"37s"`))
	is.True(!strings.Contains(GeminiQuotaBody("PerDay", ""), "retryDelay"))
}

func TestGeminiHousekeeping(t *testing.T) {
	is := is.New(t)
	s := Gemini(t, func(int, Request) Turn { t.Error("no generation expected"); return Turn{} })
	resp := post(t, s.URL+"/v1beta/models/m:countTokens", `{}`)
	is.Equal(resp.StatusCode, 200)
	resp = post(t, s.URL+"/v1beta/models/m:generateContent", `{}`)
	is.Equal(resp.StatusCode, 200)
	b, _ := io.ReadAll(resp.Body)
	is.True(strings.Contains(string(b), `"finishReason":"STOP"`))
	g, err := http.Get(s.URL + "/v1beta/models")
	is.NoErr(err)
	g.Body.Close()
	is.Equal(g.StatusCode, 404)

	var settings map[string]any
	is.NoErr(json.Unmarshal([]byte(GeminiSettings()), &settings))
	is.Equal(settings["general"].(map[string]any)["maxAttempts"], float64(1))
}
