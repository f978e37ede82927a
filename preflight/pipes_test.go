package preflight

import (
	"context"
	"strings"
	"testing"

	"github.com/architect-dev/architect/config"
	"github.com/matryer/is"
)

// A check whose pipeline ends in a reader that stops early gets a warning:
// with pipefail its verdict depends on how much the writer printed.
func TestEarlyReaders(t *testing.T) {
	cases := []struct {
		check string
		want  []string
	}{
		{"go test ./... 2>&1 | head -50", []string{"head"}},
		{"seq 1 100000 | sort | /usr/bin/head -1", []string{"head"}},
		{"npm test |& grep -q passing", []string{"grep -q passing"}},
		{"make test | grep -m1 -E 'ok|FAIL'", []string{"grep -m1 -E ok|FAIL"}},
		{"cd web && { npm test 2>&1 | head -5; }", []string{"head"}},
		{"go test ./... 2>&1 | tail -5", nil},
		{"go test ./... | grep -v '^ok'", nil},
		{"head -5 log.txt", nil},                          // reads a file, not a pipe
		{"set +o pipefail; go test ./... | head -5", nil}, // said on purpose
		{"go test ./... | tee out.txt", nil},              // reads to the end
		{"grep -q x file && echo found | cat", nil},       // grep -q reads no pipe
		{"if (; then", nil},                               // unreadable: sh says so
	}
	for _, c := range cases {
		t.Run(c.check, func(t *testing.T) {
			is.New(t).Equal(EarlyReaders(c.check), c.want)
		})
	}
}

// The pre-flight item: a warning that names the reader and says how to
// fix the check; none for a check that reads its pipe to the end.
func TestCheckWarnsOfEarlyReader(t *testing.T) {
	is := is.New(t)
	cfg := config.Defaults()
	cfg.Dir = t.TempDir()
	cfg.Checks = []string{"seq 1 1000000 | head -1", "seq 1 1000000 | tail -1"}
	r := Run(context.Background(), cfg, commandAgent(t, "true"), Options{NoWorkspace: true})
	var head, tail []Item
	for _, it := range r.Items {
		switch it.Check {
		case "check `seq 1 1000000 | head -1`":
			head = append(head, it)
		case "check `seq 1 1000000 | tail -1`":
			tail = append(tail, it)
		}
	}
	is.Equal(len(head), 2)
	is.Equal(head[1].Status, Warn)
	is.True(strings.Contains(head[1].Detail, "`head`"))
	is.True(strings.Contains(head[1].Detail, "SIGPIPE"))
	is.True(strings.Contains(head[1].Hint, "tail"))
	is.Equal(len(tail), 1)
	is.Equal(tail[0].Status, OK)
}
