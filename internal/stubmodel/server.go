// Package stubmodel is a test helper: a scripted model server on 127.0.0.1
// that speaks the wire protocols of the agent CLIs architect drives
// (Anthropic Messages SSE, OpenAI Responses SSE, Gemini streamGenerateContent
// SSE), so the real CLIs can be tested without internet. Every request is
// recorded; each response is chosen by a Responder written by the test.
package stubmodel

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Usage is the token usage a scripted turn reports.
type Usage struct {
	Input, CachedInput, Output int
}

// ToolCall is one tool call a scripted turn makes. Name and Args follow the
// CLI's own tool names (Claude: "Write" {file_path, content}; Gemini:
// "write_file" {file_path, content}; Codex: "apply_patch" with Input holding
// the patch text, or "exec_command" {cmd}).
type ToolCall struct {
	Name  string
	Args  map[string]any
	Input string // raw input for custom tools (Codex apply_patch)
}

// Turn is one scripted model answer.
type Turn struct {
	Text      string     // assistant text (may be empty when only tools are called)
	ToolCalls []ToolCall // tool calls, answered by the CLI in its next request
	Usage     Usage
	// Status, when non-zero, makes the server answer with this HTTP status
	// and ErrorBody (or a protocol-appropriate default error body).
	Status    int
	ErrorBody string
	Header    http.Header // extra response headers (e.g. retry-after)
}

// Request is one recorded request.
type Request struct {
	Method string
	Path   string // URL path with query
	Header http.Header
	Body   []byte
}

// Responder picks the answer to a request. It is called for every
// model-generation request (not for HEAD or other housekeeping requests the
// protocol handler answers itself). n counts generation requests from 0.
type Responder func(n int, r Request) Turn

// Sequence answers the n-th generation request with turns[n], and repeats
// the last turn after that.
func Sequence(turns ...Turn) Responder {
	return func(n int, _ Request) Turn {
		if n >= len(turns) {
			n = len(turns) - 1
		}
		return turns[n]
	}
}

// Server is a running stub model server.
type Server struct {
	URL string // http://127.0.0.1:PORT

	mu       sync.Mutex
	requests []Request
	gen      int
	respond  Responder
	srv      *httptest.Server
}

// protocol handles one wire protocol: it writes the answer for a
// generation request, or handles a housekeeping request itself.
type protocol interface {
	// isGeneration reports whether r asks the model for a completion.
	isGeneration(r *http.Request) bool
	// housekeeping answers any other request (HEAD /, model lists, token counts).
	housekeeping(w http.ResponseWriter, r *http.Request)
	// answer streams turn t as the protocol's SSE response to generation request req.
	answer(w http.ResponseWriter, req Request, t Turn)
}

func start(t testing.TB, p protocol, respond Responder) *Server {
	t.Helper()
	s := &Server{respond: respond}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("stubmodel: listen: %v", err)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !p.isGeneration(r) {
			p.housekeeping(w, r)
			return
		}
		s.mu.Lock()
		n := s.gen
		s.gen++
		s.mu.Unlock()
		p.answer(w, rec, s.respond(n, rec))
	}))
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Generations returns the generation requests received so far, in order.
func (s *Server) Generations(p func(Request) bool) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if p == nil || p(r) {
			out = append(out, r)
		}
	}
	return out
}
