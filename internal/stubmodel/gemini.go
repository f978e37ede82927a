package stubmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Gemini starts a stub speaking the Gemini API as the Gemini CLI uses it:
// POST /v1beta/models/M:streamGenerateContent?alt=sse, answered with
// Server-Sent Events. Point the CLI at it with GOOGLE_GEMINI_BASE_URL=URL
// (see GeminiSettings for the rest of its setup).
//
// A Turn's ToolCalls become functionCall parts ({"name": "write_file",
// "args": {"file_path": ABS, "content": …}}). A Turn with Status answers
// with that HTTP status and ErrorBody, or a Google-shaped default error
// body for the status. Only streamGenerateContent requests go to the
// Responder: token counts and the CLI's side requests (generateContent)
// are answered by the stub itself.
func Gemini(t testing.TB, r Responder) *Server {
	t.Helper()
	return start(t, geminiProtocol{}, r)
}

type geminiProtocol struct{}

func (geminiProtocol) isGeneration(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
}

func (geminiProtocol) housekeeping(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		fmt.Fprint(w, `{"totalTokens":1}`)
	case strings.HasSuffix(r.URL.Path, ":generateContent"):
		// Side requests (next-speaker checks, summaries): a short answer
		// that ends nothing and asks for nothing.
		fmt.Fprint(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"reasoning\":\"done\",\"next_speaker\":\"user\"}"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":0,"candidatesTokenCount":0,"totalTokenCount":0}}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, GeminiErrorBody(http.StatusNotFound))
	}
}

// GeminiErrorBody returns the body the Gemini API sends with status, in the
// {"error":{code,message,status}} shape.
func GeminiErrorBody(status int) string {
	st, msg := "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	var details []any
	switch status {
	case http.StatusBadRequest:
		st, msg = "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."
		details = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}}
	case http.StatusUnauthorized:
		st, msg = "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
	case http.StatusForbidden:
		st, msg = "PERMISSION_DENIED", "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
	case http.StatusNotFound:
		st, msg = "NOT_FOUND", "models/stub-missing is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods."
	case http.StatusTooManyRequests:
		return GeminiQuotaBody("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "")
	case http.StatusServiceUnavailable:
		st, msg = "UNAVAILABLE", "The model is overloaded. Please try again later."
	}
	e := map[string]any{"code": status, "message": msg, "status": st}
	if details != nil {
		e["details"] = details
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return string(b)
}

// GeminiQuotaBody returns a 429 RESOURCE_EXHAUSTED body naming quotaID
// (e.g. "GenerateRequestsPerDayPerProjectPerModel-FreeTier" for a daily
// limit) with a RetryInfo delay such as "37s" when retryDelay is set.
func GeminiQuotaBody(quotaID, retryDelay string) string {
	details := []any{
		map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
			"quotaMetric":     "generativelanguage.googleapis.com/generate_content_free_tier_requests",
			"quotaId":         quotaID,
			"quotaDimensions": map[string]any{"location": "global", "model": "gemini-2.5-pro"},
			"quotaValue":      "50",
		}}},
		map[string]any{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{map[string]any{
			"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}}},
	}
	if retryDelay != "" {
		details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retryDelay})
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code":    429,
		"message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
		"status":  "RESOURCE_EXHAUSTED",
		"details": details,
	}})
	return string(b)
}

func (geminiProtocol) answer(w http.ResponseWriter, req Request, t Turn) {
	for k, vs := range t.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if t.Status != 0 {
		body := t.ErrorBody
		if body == "" {
			body = GeminiErrorBody(t.Status)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(t.Status)
		fmt.Fprint(w, body)
		return
	}
	model := req.Path
	if i := strings.LastIndex(model, "/models/"); i >= 0 {
		model = model[i+len("/models/"):]
	}
	if i := strings.IndexByte(model, ':'); i >= 0 {
		model = model[:i]
	}
	usage := map[string]any{
		"promptTokenCount":     t.Usage.Input + t.Usage.CachedInput,
		"candidatesTokenCount": t.Usage.Output,
		"totalTokenCount":      t.Usage.Input + t.Usage.CachedInput + t.Usage.Output,
	}
	if t.Usage.CachedInput != 0 {
		usage["cachedContentTokenCount"] = t.Usage.CachedInput
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	var parts []any
	for _, chunk := range geminiChunks(t.Text) {
		parts = append(parts, map[string]any{"text": chunk})
	}
	for _, c := range t.ToolCalls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Args}})
	}
	if len(parts) == 0 {
		parts = append(parts, map[string]any{"text": ""})
	}
	// Each part in its own chunk, as the API streams them; the last chunk
	// carries finishReason and the usage.
	for i, p := range parts {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{p}}, "index": 0}
		chunk := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "stub-response"}
		if i == len(parts)-1 {
			cand["finishReason"] = "STOP"
			chunk["usageMetadata"] = usage
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// geminiChunks cuts text in two at a space, as the API streams text in
// pieces, so that clients are seen to join them.
func geminiChunks(text string) []string {
	if text == "" {
		return nil
	}
	if i := strings.IndexByte(text[len(text)/2:], ' '); i >= 0 {
		cut := len(text)/2 + i + 1
		if cut < len(text) {
			return []string{text[:cut], text[cut:]}
		}
	}
	return []string{text}
}

// GeminiSettings returns a $HOME/.gemini/settings.json for tests: API-key
// authentication, folder trust off (else --yolo is downgraded), telemetry,
// usage statistics and updates off, and a single attempt per request so
// that an error answer ends the run at once.
func GeminiSettings() string {
	return `{
  "security": {
    "auth": {"selectedType": "gemini-api-key"},
    "folderTrust": {"enabled": false}
  },
  "general": {
    "maxAttempts": 1,
    "enableAutoUpdate": false,
    "enableAutoUpdateNotification": false
  },
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`
}
