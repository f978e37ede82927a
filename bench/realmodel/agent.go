//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// chatRequest is what the agent sends to the endpoint.
type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	MaxTokens   int           `json:"max_tokens"`
	Temperature float64       `json:"temperature"`
	TopP        float64       `json:"top_p,omitempty"`
	TopK        int           `json:"top_k,omitempty"`
	Seed        uint64        `json:"seed"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// sampling is how the model is asked to sample.
type sampling struct {
	Temperature, TopP float64
	TopK, MaxTokens   int
}

// greedy is the decoding the published HumanEval figures use; sampled is
// Qwen2.5-Coder's own generation_config (temperature 0.7, top_p 0.8,
// top_k 20), the setting under which independent attempts differ.
var (
	greedy  = sampling{MaxTokens: 1024}
	sampled = sampling{Temperature: 0.7, TopP: 0.8, TopK: 20, MaxTokens: 1024}
)

// complete sends one user message to the endpoint and returns the answer.
// prefix, when not empty, is the start of the answer, which the model
// continues; the answer returned begins with it. tag goes in the
// X-Bench-Tag header, which the server writes in its usage log with the
// tokens and seconds.
func complete(ctx context.Context, endpoint, tag string, s sampling, seed uint64, user, prefix string) (string, error) {
	msgs := []chatMessage{{Role: "user", Content: user}}
	if prefix != "" {
		msgs = append(msgs, chatMessage{Role: "assistant", Content: prefix})
	}
	body, _ := json.Marshal(chatRequest{Model: "local", Messages: msgs,
		MaxTokens: s.MaxTokens, Temperature: s.Temperature, TopP: s.TopP, TopK: s.TopK, Seed: seed})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(endpoint, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Bench-Tag", tag)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(b))
	}
	var out struct {
		Choices []struct {
			Message chatMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Choices) == 0 {
		return "", fmt.Errorf("no answer in %.200s", b)
	}
	return prefix + out.Choices[0].Message.Content, nil
}

// seedOf derives a request's seed from its tag, so that every request of
// a run has its own and a rerun has the same.
func seedOf(tag string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(tag))
	return h.Sum64() >> 33 // llama.cpp takes a 32-bit seed
}

// unlabelled is a tag without its first part, the label: two labels
// (two builds of architect, say) sample the same problem's same iteration
// with the same seed, so a first iteration, whose prompt both share,
// answers the same, and the comparison is paired.
func unlabelled(tag string) string {
	_, rest, ok := strings.Cut(tag, "/")
	if !ok {
		return tag
	}
	return rest
}

// agentTag is the tag of one request of the agent: the run's tag, the
// iteration and, when architect runs candidates, the candidate. The seed
// is derived from it (seedOf), so each candidate of a round samples its
// own answer; without a candidate the tag, and so the seed, is the one
// single and loop runs have always had.
func agentTag(tag, iteration, candidate string) string {
	t := tag + "/i" + iteration
	if candidate != "" {
		t += "/c" + candidate
	}
	return t
}

// pickCode returns the code to write from an answer: the last fenced
// Python block that defines entry, else the last Python block, else "".
func pickCode(answer, entry string) string {
	blocks := codeBlocks(answer)
	for i := len(blocks) - 1; i >= 0; i-- {
		if entry != "" && strings.Contains(blocks[i], "def "+entry+"(") {
			return blocks[i]
		}
	}
	if len(blocks) == 0 {
		return ""
	}
	return blocks[len(blocks)-1]
}

// runAgent is `realmodel agent`: architect's command agent. It reads
// architect's prompt on stdin, sends it to the model as the user message,
// writes the code block of the answer to the file, and reports the answer
// as its final message (stdout and $ARCHITECT_RESULT_FILE).
func runAgent(args []string) error {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	endpoint := fs.String("endpoint", "http://127.0.0.1:8088/v1", "the OpenAI-compatible endpoint")
	file := fs.String("file", solutionFile, "the file to write the answer's code to")
	entry := fs.String("entry", "", "the function the code must define (picks the block)")
	tag := fs.String("tag", "", "names the run in the server's usage log")
	temp := fs.Float64("temperature", sampled.Temperature, "sampling temperature (0: greedy)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	prompt, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	s := sampled
	s.Temperature = *temp
	if *temp == 0 {
		s = greedy
	}
	t := agentTag(*tag, os.Getenv("ARCHITECT_ITERATION"), os.Getenv("ARCHITECT_CANDIDATE"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	answer, err := complete(ctx, *endpoint, t, s, seedOf(unlabelled(t)), string(prompt), "")
	if err != nil {
		return err
	}
	if code := pickCode(answer, *entry); code != "" {
		path := *file
		if ws := os.Getenv("ARCHITECT_WORKSPACE"); ws != "" && !filepath.IsAbs(path) {
			path = filepath.Join(ws, path)
		}
		if err := os.WriteFile(path, []byte(code), 0o644); err != nil {
			return err
		}
	}
	fmt.Println(answer)
	if rf := os.Getenv("ARCHITECT_RESULT_FILE"); rf != "" {
		zero := 0.0
		b, _ := json.Marshal(struct {
			Cost  *float64 `json:"cost_usd"`
			Steps int      `json:"steps"`
			Final string   `json:"final_message"`
		}{&zero, 1, answer})
		return os.WriteFile(rf, b, 0o600)
	}
	return nil
}
