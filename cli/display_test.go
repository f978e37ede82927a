package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/architect-dev/architect/loop"
	"github.com/matryer/is"
)

var evT0 = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

func evPtr[T any](v T) *T { return &v }

// at stamps ev as happening s seconds after evT0.
func evAt(s float64, ev loop.Event) loop.Event {
	ev.Time = evT0.Add(time.Duration(s * float64(time.Second))).Format(time.RFC3339Nano)
	return ev
}

func renderAt(d *display, s float64) string {
	return strings.Join(d.frame(evT0.Add(time.Duration(s*float64(time.Second))), 0, 0, palette{}), "\n")
}

func TestDisplayFrames(t *testing.T) {
	is := is.New(t)
	var d display
	apply := func(s float64, ev loop.Event) { d.apply(evAt(s, ev), time.Time{}) }

	apply(0, loop.Event{Type: loop.EventLoopStarted, MaxIterations: 25, Checks: []string{"go test ./...", "go vet ./..."}})
	apply(1, loop.Event{Type: loop.EventIterationStarted, Iteration: 1, MaxIterations: 25})
	apply(5, loop.Event{Type: loop.EventAgentActivity, Iteration: 1, Text: "Edit value.txt"})
	is.Equal(renderAt(&d, 73), ""+
		"architect ⠋ iteration 1/25 · agent 1m12s · elapsed 1m13s · $0.0000\n"+
		"  › Edit value.txt\n"+
		"  · go test ./...\n"+
		"  · go vet ./...")

	apply(80, loop.Event{Type: loop.EventAgentFinished, Iteration: 1, Cost: evPtr(0.0125)})
	apply(80, loop.Event{Type: loop.EventCheckStarted, Iteration: 1, Check: "go test ./...", Index: evPtr(0)})
	apply(80, loop.Event{Type: loop.EventCheckStarted, Iteration: 1, Check: "go vet ./...", Index: evPtr(1)})
	apply(81.5, loop.Event{Type: loop.EventCheckFinished, Iteration: 1, Check: "go vet ./...", Index: evPtr(1), Passed: evPtr(true), Duration: evPtr(1.5)})
	is.Equal(renderAt(&d, 83), ""+
		"architect ⠋ iteration 1/25 · checks · elapsed 1m23s · $0.0125\n"+
		"  › Edit value.txt\n"+
		"  ⠋ go test ./...  3s\n"+
		"  ✓ go vet ./...  1.5s")

	apply(90, loop.Event{Type: loop.EventCheckFinished, Iteration: 1, Check: "go test ./...", Index: evPtr(0), Passed: evPtr(false), Duration: evPtr(10.0), TimedOut: true})
	apply(90, loop.Event{Type: loop.EventIterationFinished, Iteration: 1})
	apply(91, loop.Event{Type: loop.EventIterationStarted, Iteration: 2, MaxIterations: 25})
	apply(92, loop.Event{Type: loop.EventAgentFinished, Iteration: 2}) // cost unknown
	apply(92, loop.Event{Type: loop.EventBackoff, Iteration: 2, Seconds: evPtr(30.0), Attempt: 1})
	is.Equal(renderAt(&d, 100), ""+
		"architect ⠋ iteration 2/25 · backoff: retrying in 22s (attempt 1) · elapsed 1m40s · $0.0125+\n"+
		"  · go test ./...\n"+
		"  · go vet ./...")

	apply(130, loop.Event{Type: loop.EventUsageLimitWait, Iteration: 3, Seconds: evPtr(3720.0)})
	is.True(strings.Contains(renderAt(&d, 130), "waiting for the usage limit: 1h02m left (until ")) // countdown

	apply(4000, loop.Event{Type: loop.EventLoopFinished, Success: evPtr(true), TotalIterations: evPtr(3)})
	is.Equal(strings.SplitN(renderAt(&d, 5000), "\n", 2)[0], "architect ✓ iteration 3/25 · success · elapsed 1h06m · $0.0125+") // the clock stops
}

func TestDisplayFailedCheckAndColour(t *testing.T) {
	is := is.New(t)
	var d display
	d.apply(evAt(0, loop.Event{Type: loop.EventLoopStarted, MaxIterations: 1, Checks: []string{"make"}}), time.Time{})
	d.apply(evAt(1, loop.Event{Type: loop.EventCheckFinished, Check: "make", Index: evPtr(0), Passed: evPtr(false), Duration: evPtr(2.0)}), time.Time{})
	d.apply(evAt(2, loop.Event{Type: loop.EventLoopFinished, Success: evPtr(false), StopReason: "max_iterations", TotalIterations: evPtr(1)}), time.Time{})
	plain := d.frame(evT0, 0, 0, palette{})
	is.Equal(plain, []string{"architect ✗ iteration 1/1 · stopped: max_iterations · elapsed 2s · $0.0000", "  ✗ make  2.0s"})
	coloured := d.frame(evT0, 0, 0, palette{on: true})
	is.Equal(coloured[1], "  \x1b[31m✗\x1b[0m make  \x1b[2m2.0s\x1b[0m")
	for _, l := range plain {
		is.True(!strings.Contains(l, "\x1b")) // NO_COLOR: no escape codes
	}
}

func TestFitWidth(t *testing.T) {
	is := is.New(t)
	is.Equal(fitWidth("abcdef", 6), "abcdef")
	is.Equal(fitWidth("abcdefg", 6), "abcde…")
	is.Equal(fitWidth("✓ élan vital", 5), "✓ él…")
	is.Equal(fitWidth("\x1b[32m✓\x1b[0m abcdef", 4), "\x1b[32m✓\x1b[0m a…\x1b[0m") // escapes take no room
	is.Equal(fitWidth("abc", 0), "abc")
}

func TestStampWriter(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	w := &stampWriter{w: &out, now: func() time.Time { return evT0 }}
	w.Write([]byte("architect: iteration 1/25: running the command agent\narchitect: warn"))
	w.Write([]byte("ing: slow\n"))
	is.Equal(out.String(), "2026-11-22T08:00:00Z architect: iteration 1/25: running the command agent\n2026-11-22T08:00:00Z architect: warning: slow\n")
}

func TestLiveViewRedrawsInPlace(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	v := &liveView{w: &out, fd: -1, now: func() time.Time { return evT0.Add(2 * time.Second) }}
	v.observe(evAt(0, loop.Event{Type: loop.EventLoopStarted, MaxIterations: 3, Checks: []string{"true"}}))
	is.Equal(out.String(), "architect ⠋ iteration 0/3 · starting · elapsed 2s · $0.0000\x1b[K\n  · true\x1b[K\n\x1b[J")
	out.Reset()
	v.Write([]byte("architect: iteration 1/3: running the command agent\n")) // shown by the view
	is.Equal(out.String(), "")
	v.Write([]byte("architect: warning: disk full\n")) // printed above the view
	is.Equal(out.String(), "\r\x1b[2A\x1b[Jarchitect: warning: disk full\x1b[K\n"+
		"architect ⠋ iteration 0/3 · starting · elapsed 2s · $0.0000\x1b[K\n  · true\x1b[K\n\x1b[J")
}

// TestLiveViewConcurrent: the ticker, events and log lines may arrive at
// once (run with -race); stop ends the ticker and leaves the last frame.
func TestLiveViewConcurrent(t *testing.T) {
	is := is.New(t)
	var out syncBuffer
	v := startLive(&out, -1, palette{on: true}, time.Now)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			v.Write([]byte("architect: warning: w\n"))
		}
	}()
	v.observe(evAt(0, loop.Event{Type: loop.EventLoopStarted, MaxIterations: 3, Checks: []string{"true"}}))
	for i := 0; i < 50; i++ {
		v.observe(evAt(float64(i), loop.Event{Type: loop.EventAgentActivity, Text: "x"}))
	}
	<-done
	v.stop()
	v.stop() // idempotent
	is.True(strings.HasSuffix(out.String(), "\x1b[J"))
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
