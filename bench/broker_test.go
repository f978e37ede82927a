//go:build linux

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/architect-dev/architect/sandbox/broker"
)

// BenchmarkModelRequest is one streamed model answer (an Anthropic-shaped
// SSE stream of 1.3 KB) fetched straight from a provider on loopback, and
// through the credential broker: the difference is what the broker adds
// to each model request.
func BenchmarkModelRequest(b *testing.B) {
	events := strings.Repeat("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hello\"}}\n\n", 12)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message_start\ndata: {}\n\n")
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, events+"event: message_stop\ndata: {}\n\n")
	}))
	defer up.Close()
	route, err := broker.Plan("claude", []string{"ANTHROPIC_API_KEY=sk-ant-bench", "ANTHROPIC_BASE_URL=" + up.URL})
	if err != nil {
		b.Fatal(err)
	}
	br, err := broker.Start(route)
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	var dummy string
	for _, kv := range br.Env() {
		if v, ok := strings.CutPrefix(kv, "ANTHROPIC_API_KEY="); ok {
			dummy = v
		}
	}
	body := strings.Repeat(`{"role":"user","content":"fix the failing test"}`, 40)
	for _, c := range []struct{ name, url, key string }{{"direct", up.URL, "sk-ant-bench"}, {"broker", br.URL(), dummy}} {
		b.Run(c.name, func(b *testing.B) {
			client := &http.Client{}
			for b.Loop() {
				req, _ := http.NewRequest("POST", c.url+"/v1/messages?beta=true", strings.NewReader(body))
				req.Header.Set("x-api-key", c.key)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, cerr := io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != 200 || n < 1000 {
					b.Fatalf("status %d, %d bytes: %v", resp.StatusCode, n, cerr)
				}
			}
		})
	}
}
