package notify

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/architect-dev/architect/config"
	"github.com/architect-dev/architect/runlog"
	"github.com/matryer/is"
)

// fake is a service on 127.0.0.1 that records what it is sent.
type fake struct {
	mu   sync.Mutex
	reqs []request
	got  chan request
	srv  *httptest.Server
}

type request struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

func newFake(t *testing.T, reply func(r request) string) *fake {
	f := &fake{got: make(chan request, 100)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		req := request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header, Body: string(b)}
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
		select {
		case f.got <- req:
		default: // a poll's requests past the channel's room are only recorded, never waited on
		}
		out := `{"ok":true}`
		if reply != nil {
			out = reply(req)
		}
		_, _ = io.WriteString(w, out)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) next(t *testing.T) request {
	t.Helper()
	select {
	case r := <-f.got:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no request came")
	}
	return request{}
}

func jsonOf(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not JSON: %q", s)
	}
	return m
}

func finished(success bool, reason string) runlog.Event {
	n := 3
	cost := 1.5
	return runlog.Event{Type: runlog.EventLoopFinished, Iteration: 3, Success: &success, StopReason: reason, TotalIterations: &n, TotalCost: &cost}
}

func TestEachServiceGetsItsPayload(t *testing.T) {
	is := is.New(t)
	slack, ntfy, hook := newFake(t, nil), newFake(t, nil), newFake(t, nil)
	tg := newFake(t, func(r request) string { return `{"ok":true,"result":{"message_id":77}}` })
	targets := []Target{
		{Notifier: config.Notifier{Type: config.NotifySlack}, URL: slack.srv.URL + "/services/T/B/X"},
		{Notifier: config.Notifier{Type: config.NotifyTelegram, ChatID: "42", APIURL: tg.srv.URL, Events: []string{"success", "failure"}}, Token: "123:SECRET"},
		{Notifier: config.Notifier{Type: config.NotifyNtfy}, URL: ntfy.srv.URL + "/mytopic", Token: "tk_abc"},
		{Notifier: config.Notifier{Type: config.NotifyWebhook, Events: []string{"limit", "started"}}, URL: hook.srv.URL + "/hook"},
	}
	o := New(Options{Targets: targets, Task: "fix the parser"})
	o.Observe(runlog.Event{Type: runlog.EventLoopStarted, Workspace: "/w", Branch: "architect/x"})
	o.Observe(finished(true, runlog.StopSuccess))
	o.Close(10 * time.Second)

	s1, s2 := slack.next(t), slack.next(t)
	is.Equal(s1.Header.Get("Content-Type"), "application/json")
	is.Equal(s1.Path, "/services/T/B/X")
	is.Equal(jsonOf(t, s1.Body)["text"], "*architect: the loop started*\ntask: fix the parser")
	is.Equal(jsonOf(t, s2.Body)["text"], "*architect: success*\nall checks pass after 3 iterations, $1.50\ntask: fix the parser")

	r := tg.next(t) // only success: started is not among its events
	is.Equal(r.Path, "/bot123:SECRET/sendMessage")
	body := jsonOf(t, r.Body)
	is.Equal(body["chat_id"], "42")
	is.Equal(body["text"], "architect: success\n\nall checks pass after 3 iterations, $1.50\ntask: fix the parser")

	n1, n2 := ntfy.next(t), ntfy.next(t)
	is.Equal(n1.Path, "/mytopic")
	is.Equal(n1.Header.Get("Title"), "architect: the loop started")
	is.Equal(n1.Header.Get("Tags"), "started")
	is.Equal(n1.Header.Get("Authorization"), "Bearer tk_abc")
	is.Equal(n2.Body, "all checks pass after 3 iterations, $1.50\ntask: fix the parser")

	h := hook.next(t) // started only: success is not among its events
	hb := jsonOf(t, h.Body)
	is.Equal(hb["event"], "started")
	is.Equal(hb["workspace"], "/w")
	is.Equal(hb["branch"], "architect/x")
	is.Equal(hb["source"], "architect")
	is.Equal(len(hook.reqs), 1)
	is.Equal(len(tg.reqs), 1)
}

// A question says how to reply only where the service takes replies:
// Telegram (a reply to the message), ntfy with replies (a message on the
// topic); Slack and the webhook say architect answer alone.
func TestQuestionSaysHowToReplyWhereOneCan(t *testing.T) {
	is := is.New(t)
	slack, hook := newFake(t, nil), newFake(t, nil)
	tg := newFake(t, func(r request) string { return `{"ok":true,"result":{"message_id":77}}` })
	o := New(Options{Targets: []Target{
		{Notifier: config.Notifier{Type: config.NotifySlack, Events: []string{"question"}}, URL: slack.srv.URL + "/s"},
		{Notifier: config.Notifier{Type: config.NotifyTelegram, ChatID: "42", APIURL: tg.srv.URL, Events: []string{"question"}}, Token: "1:T"},
		{Notifier: config.Notifier{Type: config.NotifyWebhook, Events: []string{"question"}}, URL: hook.srv.URL + "/h"},
	}})
	o.Observe(runlog.Event{Type: runlog.EventQuestion, Iteration: 2, Text: "which port?", Until: "2026-11-28T13:00:00Z"})
	s := jsonOf(t, slack.next(t).Body)["text"].(string)
	is.Equal(s, "*architect: the agent asks (iteration 2)*\nwhich port?\n\nAnswer with `architect answer \"…\"` in the workspace; the loop waits until 2026-11-28T13:00:00Z")
	g := jsonOf(t, tg.next(t).Body)["text"].(string)
	is.True(strings.Contains(g, "in the workspace, or reply to this message; the loop waits until"))
	w := jsonOf(t, hook.next(t).Body)["text"].(string)
	is.True(!strings.Contains(w, "reply") && !strings.Contains(w, "\x00"))
	o.Close(10 * time.Second)
}

func TestEventsChosen(t *testing.T) {
	cases := []struct {
		ev    runlog.Event
		event string
	}{
		{runlog.Event{Type: runlog.EventLoopStarted}, "started"},
		{runlog.Event{Type: runlog.EventQuestion, Iteration: 2, Text: "which database?"}, "question"},
		{finished(true, runlog.StopSuccess), "success"},
		{finished(false, runlog.StopMaxIterations), "limit"},
		{finished(false, runlog.StopBudget), "limit"},
		{finished(false, runlog.StopTimeout), "limit"},
		{finished(false, runlog.StopStalled), "failure"},
		{finished(false, runlog.StopQuestion), "failure"},
		{runlog.Event{Type: runlog.EventUsageLimitWait, Until: "2026-11-28T13:00:00Z"}, "usage_limit_wait"},
	}
	for _, c := range cases {
		t.Run(c.event+"/"+c.ev.StopReason, func(t *testing.T) {
			is := is.New(t)
			m, ok := message(c.ev, "")
			is.True(ok)
			is.Equal(m.Event, c.event)
		})
	}
	_, ok := message(runlog.Event{Type: runlog.EventAgentActivity}, "")
	is.New(t).True(!ok)
}

// A service that is down, or answers with an error, is a warning that
// names neither its URL nor its token; the observer does not wait long.
func TestFailedPostWarnsWithoutSecrets(t *testing.T) {
	is := is.New(t)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	bad := newFake(t, nil)
	bad.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such bot", http.StatusUnauthorized)
	})
	var log bytes.Buffer
	o := New(Options{Log: &log, Timeout: 2 * time.Second, Targets: []Target{
		{Notifier: config.Notifier{Type: config.NotifySlack}, URL: downURL + "/services/SECRETPATH"},
		{Notifier: config.Notifier{Type: config.NotifyTelegram, ChatID: "1", APIURL: bad.srv.URL}, Token: "999:TOKENVALUE"},
	}})
	o.Observe(finished(false, runlog.StopStalled))
	o.Close(10 * time.Second)
	out := log.String()
	is.True(strings.Contains(out, "architect: warning: notifiers: posting the failure message to slack failed"))
	is.True(strings.Contains(out, "posting the failure message to telegram failed: HTTP 401: no such bot"))
	is.True(!strings.Contains(out, "SECRETPATH"))
	is.True(!strings.Contains(out, "TOKENVALUE"))
}

// A reply to the question's message, in the notifier's chat, is the
// answer; other messages are not.
func TestTelegramReplyAnswers(t *testing.T) {
	is := is.New(t)
	ws := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(ws, runlog.StateDir), 0o700))
	first := true
	tg := newFake(t, func(r request) string {
		if strings.HasSuffix(r.Path, "/sendMessage") {
			return `{"ok":true,"result":{"message_id":500}}`
		}
		if first {
			first = false
			return `{"ok":true,"result":[
				{"update_id":10,"message":{"message_id":501,"chat":{"id":7},"text":"not a reply"}},
				{"update_id":11,"message":{"message_id":502,"chat":{"id":8},"text":"other chat","reply_to_message":{"message_id":500}}},
				{"update_id":12,"message":{"message_id":503,"chat":{"id":7},"text":"other message","reply_to_message":{"message_id":499}}}]}`
		}
		return `{"ok":true,"result":[{"update_id":13,"message":{"message_id":504,"chat":{"id":7},"text":"use PostgreSQL","reply_to_message":{"message_id":500}}}]}`
	})
	o := New(Options{Targets: []Target{{Notifier: config.Notifier{Type: config.NotifyTelegram, ChatID: "7", APIURL: tg.srv.URL, Events: []string{"question"}}, Token: "1:T"}}})
	o.Observe(runlog.Event{Type: runlog.EventLoopStarted, Workspace: ws})
	o.Observe(runlog.Event{Type: runlog.EventQuestion, Iteration: 4, Text: "which database?", Until: "2026-11-28T13:00:00Z"})
	send := tg.next(t)
	is.True(strings.Contains(jsonOf(t, send.Body)["text"].(string), "which database?"))
	p1 := tg.next(t)
	is.True(strings.HasPrefix(p1.Path, "/bot1:T/getUpdates"))
	p2 := tg.next(t)
	is.True(strings.Contains(p2.Query, "offset=13")) // the updates seen are confirmed
	o.pollWG.Wait()                                  // the poll ends once it has handed the answer over
	a, ok := runlog.ReadAnswer(ws, 4)
	is.True(ok)
	_, ok = runlog.ReadAnswer(ws, 3) // an answer is to one question
	is.True(!ok)
	is.Equal(a.Text, "use PostgreSQL")
	is.Equal(a.Via, "telegram")
	o.Observe(runlog.Event{Type: runlog.EventAnswered, Iteration: 4})
	o.Close(5 * time.Second)
}

// Observe never waits for a post: with the service hanging, the events
// are queued, a full queue drops (and says so), and Close gives up after
// the time it is given.
func TestObserveNeverWaits(t *testing.T) {
	is := is.New(t)
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-release
	}))
	defer hang.Close()
	defer close(release)
	var log syncBuffer
	o := New(Options{Log: &log, Timeout: time.Hour, Targets: []Target{{Notifier: config.Notifier{Type: config.NotifyWebhook}, URL: hang.URL}}})
	o.Observe(runlog.Event{Type: runlog.EventLoopStarted})
	<-arrived // the worker is stuck in its first post, and Observe returned
	for range queueSize {
		o.Observe(runlog.Event{Type: runlog.EventLoopStarted})
	}
	is.Equal(log.String(), "")
	o.Observe(runlog.Event{Type: runlog.EventLoopStarted}) // one too many
	is.True(strings.Contains(log.String(), "the started message is dropped"))
	o.Close(50 * time.Millisecond)
	is.True(strings.Contains(log.String(), "posting took longer than 50ms"))
	is.Equal(strings.Count(log.String(), "\n"), 2) // nothing more once closed
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestNtfyAnswerParsing(t *testing.T) {
	own := func(id string) bool { return id == "q1" || id == "s0" }
	cases := []struct {
		name, body, answer, last string
	}{
		{"nothing", "", "", ""},
		{"the answer", `{"id":"a1","time":100,"event":"message","message":"use PostgreSQL"}`, "use PostgreSQL", "a1"},
		{"malformed lines are passed over",
			"not json\n{\"id\":\"x\",\"time\":\n{\"id\":\"a1\",\"time\":100,\"event\":\"message\",\"message\":\"yes\"}\n", "yes", "a1"},
		{"architect's own question, by its id",
			`{"id":"q1","time":100,"event":"message","message":"which one?"}` + "\n" + `{"id":"a1","time":101,"event":"message","message":"this one"}`, "this one", "a1"},
		{"architect's own messages, by their title (another run's)",
			`{"id":"z9","time":100,"event":"message","title":"architect: success","message":"all checks pass"}`, "", "z9"},
		{"a message before the question",
			`{"id":"old","time":99,"event":"message","message":"stale"}` + "\n" + `{"id":"a2","time":100,"event":"message","message":"fresh"}`, "fresh", "a2"},
		{"other events and empty messages",
			`{"id":"o1","time":100,"event":"open"}` + "\n" + `{"id":"k1","time":100,"event":"keepalive"}` + "\n" + `{"id":"e1","time":100,"event":"message","message":"  "}`, "", "e1"},
		{"the first answer counts",
			`{"id":"a1","time":100,"event":"message","message":"first"}` + "\n" + `{"id":"a2","time":101,"event":"message","message":"second"}`, "first", "a1"},
		{"a title of the person's own is no marker",
			`{"id":"a3","time":100,"event":"message","title":"re: architect","message":" go on \n"}`, "go on", "a3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			answer, last := ntfyAnswer([]byte(c.body), 100, own)
			is.Equal(answer, c.answer)
			is.Equal(last, c.last)
		})
	}
}

func TestNtfyPollURL(t *testing.T) {
	is := is.New(t)
	u, err := ntfyPollURL("https://ntfy.example.com/my-topic/", "q1")
	is.NoErr(err)
	is.Equal(u, "https://ntfy.example.com/my-topic/json?poll=1&since=q1")
}

// A message published to the topic after the question answers it; the
// question itself, older messages and architect's own are passed over,
// and a poll that fails warns once however often it fails.
func TestNtfyReplyAnswers(t *testing.T) {
	is := is.New(t)
	defer func(d time.Duration) { ntfyPollGap = d }(ntfyPollGap)
	ntfyPollGap = 10 * time.Millisecond
	ws := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(ws, runlog.StateDir), 0o700))
	var mu sync.Mutex
	polls := 0
	f := newFake(t, func(r request) string {
		if r.Method == http.MethodPost {
			if r.Header.Get("Tags") == "question" {
				return `{"id":"q1","time":1000,"event":"message","topic":"t","title":"architect: the agent asks (iteration 4)","message":"which database?"}`
			}
			return `{"id":"s0","time":990,"event":"message","topic":"t","title":"architect: the loop started"}`
		}
		mu.Lock()
		defer mu.Unlock()
		polls++
		switch polls {
		case 1, 2, 3:
			return "" // served as 200 with nothing yet
		}
		return `{"id":"q1","time":1000,"event":"message","title":"architect: the agent asks (iteration 4)","message":"which database?"}
{"id":"old","time":999,"event":"message","message":"an earlier message"}
this line is not JSON
{"id":"r2","time":1001,"event":"message","title":"architect: success","message":"another run"}
{"id":"r3","time":1002,"event":"message","message":"use PostgreSQL"}`
	})
	log := &syncBuffer{}
	o := New(Options{Log: log, Targets: []Target{{Notifier: config.Notifier{Type: config.NotifyNtfy, Replies: true}, URL: f.srv.URL + "/topic", Token: "tk_secret"}}})
	o.Observe(runlog.Event{Type: runlog.EventLoopStarted, Workspace: ws})
	o.Observe(runlog.Event{Type: runlog.EventQuestion, Iteration: 4, Text: "which database?", Until: "2026-11-28T13:00:00Z"})
	is.Equal(f.next(t).Method, http.MethodPost) // started
	q := f.next(t)
	is.Equal(q.Header.Get("Tags"), "question")
	is.True(strings.Contains(q.Body, "publish the answer to this topic"))
	p1 := f.next(t)
	is.Equal(p1.Method, http.MethodGet)
	is.Equal(p1.Path, "/topic/json")
	is.True(strings.Contains(p1.Query, "since=q1")) // after the question's message
	is.True(strings.Contains(p1.Query, "poll=1"))
	is.Equal(p1.Header.Get("Authorization"), "Bearer tk_secret")
	waitPolls(t, o) // the poll ends once it has handed the answer over
	a, ok := runlog.ReadAnswer(ws, 4)
	is.True(ok)
	is.Equal(a.Text, "use PostgreSQL")
	is.Equal(a.Via, "ntfy")
	o.Observe(runlog.Event{Type: runlog.EventAnswered, Iteration: 4})
	o.Close(5 * time.Second)
	is.Equal(log.String(), "")
}

// A poll that fails says so once, not once a poll, and the poll goes on.
func TestNtfyPollFailureWarnsOnce(t *testing.T) {
	is := is.New(t)
	defer func(d time.Duration) { ntfyPollGap = d }(ntfyPollGap)
	ntfyPollGap = 5 * time.Millisecond
	ws := t.TempDir()
	is.NoErr(os.MkdirAll(filepath.Join(ws, runlog.StateDir), 0o700))
	var mu sync.Mutex
	polls := 0
	polled := make(chan struct{})
	f := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			_, _ = io.WriteString(w, `{"id":"q1","time":1000,"event":"message"}`)
			return
		}
		mu.Lock()
		polls++
		n := polls
		mu.Unlock()
		if n == 1 {
			close(polled)
		}
		if n < 6 {
			http.Error(w, "forbidden: tk_secret is wrong", http.StatusForbidden)
			return
		}
		_, _ = io.WriteString(w, `{"id":"r1","time":1001,"event":"message","message":"go on"}`)
	}))
	defer f.Close()
	log := &syncBuffer{}
	o := New(Options{Log: log, Redact: func(s string) string { return strings.ReplaceAll(s, "tk_secret", "***") },
		Targets: []Target{{Notifier: config.Notifier{Type: config.NotifyNtfy, Replies: true}, URL: f.URL + "/topic", Token: "tk_secret"}}})
	o.Observe(runlog.Event{Type: runlog.EventLoopStarted, Workspace: ws})
	o.Observe(runlog.Event{Type: runlog.EventQuestion, Iteration: 2, Text: "go on?", Until: "2026-11-28T13:00:00Z"})
	select {
	case <-polled:
	case <-time.After(10 * time.Second):
		t.Fatal("the topic was never polled")
	}
	waitPolls(t, o) // the poll ends once it has handed the answer over
	_, ok := runlog.ReadAnswer(ws, 2)
	is.True(ok)
	o.Close(5 * time.Second)
	is.Equal(strings.Count(log.String(), "reading the ntfy replies failed"), 1)
	is.True(strings.Contains(log.String(), "HTTP 403"))
	is.True(!strings.Contains(log.String(), "tk_secret"))
}

// Without replies: true, a question posted to ntfy is not followed by a
// poll of the topic.
func TestNtfyWithoutRepliesDoesNotPoll(t *testing.T) {
	is := is.New(t)
	ws := t.TempDir()
	f := newFake(t, func(r request) string { return `{"id":"q1","time":1000,"event":"message"}` })
	o := New(Options{Targets: []Target{{Notifier: config.Notifier{Type: config.NotifyNtfy}, URL: f.srv.URL + "/topic"}}})
	o.Observe(runlog.Event{Type: runlog.EventLoopStarted, Workspace: ws})
	o.Observe(runlog.Event{Type: runlog.EventQuestion, Iteration: 1, Text: "which?", Until: "2026-11-28T13:00:00Z"})
	o.Observe(runlog.Event{Type: runlog.EventUsageLimitWait, Until: "2026-11-28T13:00:00Z"})
	is.Equal(f.next(t).Method, http.MethodPost) // started
	q := f.next(t)
	is.Equal(q.Header.Get("Tags"), "question")
	is.True(!strings.Contains(q.Body, "publish the answer to this topic"))
	u := f.next(t) // the message after the question: its post is done
	is.Equal(u.Header.Get("Tags"), "usage_limit_wait")
	o.mu.Lock()
	polling := o.polling != nil
	o.mu.Unlock()
	is.True(!polling)
	o.Close(5 * time.Second)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.reqs {
		is.Equal(r.Method, http.MethodPost) // no GET of the topic
	}
}

// waitPolls waits, at most 10 seconds, for o's reply polls to end.
func waitPolls(t *testing.T, o *Observer) {
	t.Helper()
	done := make(chan struct{})
	go func() { o.pollWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		o.Close(time.Second) // ends the polls, so that the test's goroutines end
		t.Fatal("the poll did not end with an answer")
	}
}
