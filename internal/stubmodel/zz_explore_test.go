package stubmodel

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
	"strings"
	"fmt"
)

func TestExploreClaude(t *testing.T) {
	mode := os.Getenv("EXPLORE")
	if mode == "" {
		t.Skip()
	}
	dir := t.TempDir()
	var r Responder
	switch mode {
	case "ok":
		r = Sequence(
			Turn{ToolCalls: []ToolCall{{Name: "Write", Args: map[string]any{"file_path": filepath.Join(dir, "hello.txt"), "content": "hi\n"}}}, Usage: Usage{Input: 100, CachedInput: 50, Output: 20}},
			Turn{Text: "Done. <promise>COMPLETE</promise>", Usage: Usage{Input: 200, CachedInput: 60, Output: 10}},
		)
	case "bash":
		r = Sequence(
			Turn{Text: "Running the tests.", ToolCalls: []ToolCall{{Name: "Bash", Args: map[string]any{"command": "echo \"You've hit your limit · resets 5pm (Europe/Paris)\"; echo 'API Error: 429 rate limit exceeded'; echo '{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\"}}'", "description": "print scary text"}}}, Usage: Usage{Input: 100, Output: 20}},
			Turn{Text: "The tests print scary text but pass.", Usage: Usage{Input: 200, CachedInput: 100, Output: 10}},
		)
	case "500":
		r = Sequence(Turn{Status: 500})
	case "500retry":
		r = Sequence(Turn{Status: 500, Header: http.Header{"X-Should-Retry": {"true"}}})
	case "529":
		r = Sequence(Turn{Status: 529})
	case "401":
		r = Sequence(Turn{Status: 401})
	case "403":
		r = Sequence(Turn{Status: 403})
	case "404":
		r = Sequence(Turn{Status: 404, ErrorBody: `{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}`})
	case "429":
		r = Sequence(Turn{Status: 429})
	case "limit":
		r = Sequence(Turn{Status: 429, Header: AnthropicUsageLimitHeader(time.Now().Add(90 * time.Minute))})
	case "limitok":
		h := AnthropicUsageLimitHeader(time.Now().Add(90 * time.Minute))
		h.Set("anthropic-ratelimit-unified-status", "allowed_warning")
		h.Set("anthropic-ratelimit-unified-5h-status", "allowed_warning")
		r = Sequence(Turn{Text: "hello", Header: h, Usage: Usage{Input: 10, Output: 5}})
	case "hang":
		r = func(int, Request) Turn { time.Sleep(time.Hour); return Turn{} }
	}
	s := Anthropic(t, r)
	home := t.TempDir()
	args := []string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}
	if m := os.Getenv("MODEL"); m != "" {
		args = append(args, "--model", m)
	}
	if os.Getenv("STDIN") == "" {
		args = append(args, "write hello.txt")
	}
	bin := "/work/main/.cache/agents/node_modules/.bin/claude"
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"ANTHROPIC_BASE_URL=" + s.URL, "ANTHROPIC_API_KEY=sk-stub", "IS_SANDBOX=" + os.Getenv("SANDBOX"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1"}
	cmd.Env = append(cmd.Env, strings.Fields(os.Getenv("XENV"))...)
	if os.Getenv("OAUTH") != "" {
		for i, e := range cmd.Env {
			if strings.HasPrefix(e, "ANTHROPIC_API_KEY=") {
				cmd.Env[i] = "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-stub"
			}
		}
	}
	start := time.Now()
	if os.Getenv("STDIN") != "" {
		cmd.Stdin = strings.NewReader(strings.Repeat("write hello.txt ", 20000))
	}
	var se strings.Builder
	cmd.Stderr = &se
	out, err := cmd.Output()
	fmt.Printf("exit: %v after %s\n%s\nSTDERR: %s\n", err, time.Since(start), out, se.String())
	if o := os.Getenv("OUT"); o != "" {
		os.WriteFile(o, out, 0o644)
	}
	for _, q := range s.Requests() {
		b := string(q.Body)
		if len(b) > 300 && os.Getenv("FULL") == "" {
			b = b[:300]
		}
		fmt.Printf("REQ %s %s %v\n  %s\n", q.Method, q.Path, q.Header.Get("x-api-key")+q.Header.Get("authorization"), b)
	}
	_ = http.StatusOK
	b, _ := os.ReadFile(filepath.Join(dir, "hello.txt"))
	fmt.Printf("file: %q\n", b)
}
