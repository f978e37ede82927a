package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/architect-dev/architect/redact"
)

// A transcript masks the known credential formats though nothing names
// them, when the stream brings a token in pieces of any size and a
// private key over several lines (loop's streamClean: redact.Lines).
func TestBoundedFileMasksKnownSecretsInPieces(t *testing.T) {
	gh := "ghp_oabwuGEXsdXCmqKlWURtVnuTe9wlZO7nFhfJ"
	body := []string{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
		"QyNTUxOQAAACBzZ2VkJm0yNvKc1RYgQqS6c2lFbCkT8vG9E1zjQUtKmbtEHgAAAJgAAAAA"}
	text := "token " + gh + " done\nhere:\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Join(body, "\n") +
		"\n-----END OPENSSH PRIVATE KEY-----\nclone https://u:qkx6PNnTE9L8lHXD@example.com/x\nlast " + gh
	r := (&redact.Redactor{}).WithKnown()
	for _, size := range []int{1, 2, 5, 13, len(text)} {
		path := filepath.Join(t.TempDir(), "out")
		k, err := newBoundedFile(path, 1<<20, redact.Lines(r.String))
		if err != nil {
			t.Fatal(err)
		}
		for rest := text; rest != ""; {
			n := min(size, len(rest))
			_, _ = k.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		if err := k.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := "token *** done\nhere:\n***\n***\n***\n***\nclone https://u:***@example.com/x\nlast ***"
		if string(b) != want {
			t.Fatalf("pieces of %d bytes:\n got %q\nwant %q", size, b, want)
		}
	}
}
