//go:build unix

package main

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
)

// ntfyToken is the fake ntfy server's access token: it must appear
// nowhere architect writes or prints.
const ntfyToken = "tk_ntfyREPLYtoken987"

// ntfyServer is a fake ntfy server on 127.0.0.1 for one topic: it keeps
// the messages published (architect's and the person's), answers a
// publish with the message's JSON, as ntfy does, and serves the poll
// endpoint (<topic>/json?poll=1&since=ID) from what it keeps. It returns
// the since message too, so that a poll reads architect's own question
// and must pass over it.
type ntfyServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	msgs  []string // the JSON of each message kept, in order
	posts []string // "Title|Tags|Authorization|body" of each publish
	polls []string // the query of each poll
	auths []string // the Authorization of each poll
	reply string   // published by "the person" once the question came
}

func newNtfyServer(t *testing.T, reply string) *ntfyServer {
	n := &ntfyServer{reply: reply}
	// A message published before the run: older than the question.
	n.msgs = append(n.msgs, `{"id":"old0","time":1000,"event":"message","topic":"architect-topic","message":"a stale message"}`)
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n.mu.Lock()
		defer n.mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/architect-topic":
			n.posts = append(n.posts, r.Header.Get("Title")+"|"+r.Header.Get("Tags")+"|"+r.Header.Get("Authorization")+"|"+string(b))
			id := fmt.Sprintf("m%d", len(n.msgs))
			msg := fmt.Sprintf(`{"id":%q,"time":%d,"event":"message","topic":"architect-topic","title":%q,"message":%q,"tags":[%q]}`,
				id, 2000+len(n.msgs), r.Header.Get("Title"), string(b), r.Header.Get("Tags"))
			n.msgs = append(n.msgs, msg)
			fmt.Fprintln(w, msg)
			if r.Header.Get("Tags") == "question" && n.reply != "" {
				n.msgs = append(n.msgs, fmt.Sprintf(`{"id":"r%d","time":%d,"event":"message","topic":"architect-topic","message":%q}`, len(n.msgs), 2000+len(n.msgs), n.reply))
			}
		case r.Method == http.MethodGet && r.URL.Path == "/architect-topic/json":
			n.polls = append(n.polls, r.URL.RawQuery)
			n.auths = append(n.auths, r.Header.Get("Authorization"))
			since := r.URL.Query().Get("since")
			from := 0
			for i, m := range n.msgs {
				if strings.Contains(m, `"id":"`+since+`"`) {
					from = i
				}
			}
			fmt.Fprintln(w, "this line is not JSON")
			for _, m := range n.msgs[from:] {
				fmt.Fprintln(w, m)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(n.srv.Close)
	return n
}

func (n *ntfyServer) seen() (posts, polls, auths []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.posts...), append([]string(nil), n.polls...), append([]string(nil), n.auths...)
}

// noNtfyToken fails when the ntfy token is in any file under .architect/
// or in what architect printed.
func noNtfyToken(t *testing.T, repo string, printed ...string) {
	t.Helper()
	for _, p := range printed {
		if strings.Contains(p, ntfyToken) {
			t.Fatalf("the ntfy token was printed:\n%s", p)
		}
	}
	err := filepath.WalkDir(filepath.Join(repo, ".architect"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), ntfyToken) {
			t.Errorf("the ntfy token is in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A command agent's question goes to the ntfy topic; the message the
// person publishes after it answers it (not the question itself, not an
// older message), and the next prompt carries the answer.
func TestQuestionAnsweredThroughNtfy(t *testing.T) {
	is := is.New(t)
	n := newNtfyServer(t, "Use SQLite for now")
	// The agent prints the token it finds in its environment: masked.
	repo, agentDir := questionFixture(t, "sh echo \"env: $NTFY_ACCESS\"\nsay I need a decision. <question>Which database should I use?</question>\n")
	cfg := writeYAML(t, repo, `  questions: on
  question_timeout: 20s
  notifiers: [{type: ntfy, url_env: NTFY_URL, token_env: NTFY_ACCESS, replies: true, events: [question, success]}]
`)
	env := []string{"NTFY_URL=" + n.srv.URL + "/architect-topic", "NTFY_ACCESS=" + ntfyToken}
	stdout, stderr, code := architectEnv(t, agentDir, env, "loop", "fix it", "-C", repo, "-c", cfg, "--check", "true", "--agent-cmd", "fake-agent")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	posts, polls, auths := n.seen()
	is.Equal(len(posts), 2) // the question, the success
	is.True(strings.HasPrefix(posts[0], "architect: the agent asks (iteration 1)|question|Bearer "+ntfyToken+"|Which database should I use?"))
	is.True(strings.Contains(posts[0], "publish the answer to this topic"))
	is.True(len(polls) >= 1)
	is.True(strings.Contains(polls[0], "poll=1"))
	is.True(strings.Contains(polls[0], "since=m1")) // after the question's own message
	is.Equal(auths[0], "Bearer "+ntfyToken)
	p := readFile(t, filepath.Join(repo, "prompt-2.md"))
	is.True(strings.Contains(p, "```text\nWhich database should I use?\n```"))
	is.True(strings.Contains(p, "```text\nUse SQLite for now\n```"))
	is.True(!strings.Contains(p, "a stale message"))
	res := readResult(t, repo)
	is.Equal(res.StopReason, "all_checks_passed")
	is.Equal(len(res.Iterations), 2)
	is.Equal(res.Iterations[1].Answer, "Use SQLite for now")
	is.True(strings.Contains(stderr, "answer received (ntfy)"))
	is.True(!strings.Contains(stderr, "warning"))
	noNtfyToken(t, repo, stdout, stderr)
}

// Without replies: true the topic is never polled: the question waits
// for another answer (here none, and the run goes on).
func TestNtfyWithoutRepliesNotPolled(t *testing.T) {
	is := is.New(t)
	n := newNtfyServer(t, "Use SQLite for now")
	repo, agentDir := questionFixture(t, "say <question>Which database should I use?</question>\n")
	cfg := writeYAML(t, repo, `  questions: on
  question_timeout: 2s
  on_question_timeout: continue
  notifiers: [{type: ntfy, url_env: NTFY_URL, token_env: NTFY_ACCESS, events: [question]}]
`)
	env := []string{"NTFY_URL=" + n.srv.URL + "/architect-topic", "NTFY_ACCESS=" + ntfyToken}
	stdout, stderr, code := architectEnv(t, agentDir, env, "loop", "fix it", "-C", repo, "-c", cfg, "--check", "true", "--agent-cmd", "fake-agent")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	posts, polls, _ := n.seen()
	is.Equal(len(posts), 1) // the question
	is.Equal(len(polls), 0) // never polled
	is.True(!strings.Contains(posts[0], "publish the answer to this topic"))
	is.Equal(readResult(t, repo).Iterations[1].Answer, "(no answer)")
	noNtfyToken(t, repo, stdout, stderr)
}

// replies on a notifier that cannot take them is a configuration error.
func TestNtfyRepliesRefused(t *testing.T) {
	is := is.New(t)
	repo, agentDir := loopFixture(t, "say done <promise>COMPLETE</promise>\n")
	for _, c := range []struct{ yaml, msg string }{
		{`[{type: slack, url_env: NTFY_URL, replies: true}]`, "only ntfy notifiers take replies"},
		{`[{type: ntfy, url_env: NTFY_URL, replies: true, events: [success]}]`, "replies: true needs the question event"},
		{`[{type: ntfy, url_env: NTFY_URL, replies: sometimes}]`, "must be true or false"},
	} {
		cfg := writeYAML(t, repo, "  notifiers: "+c.yaml+"\n")
		_, stderr, code := architectEnv(t, agentDir, []string{"NTFY_URL=http://127.0.0.1:9/t"}, "loop", "fix it", "-C", repo, "-c", cfg, "--check", "true", "--agent-cmd", "fake-agent")
		is.Equal(code, 2)
		is.True(strings.Contains(stderr, c.msg)) // the problem, in words
		is.True(strings.Contains(stderr, "architect: hint: "))
	}
}
