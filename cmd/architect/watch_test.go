//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// tmuxwait [-e] SOCKET TARGET REGEX: wait (up to 30 s) until the tmux pane
// TARGET of the server at SOCKET shows a line matching REGEX, then print
// the pane (with -e, with its escape sequences) on stdout for the next
// assertions. The first call for a socket arranges for the server to be
// killed when the script ends, after creating $WORK/release, the file the
// scripts' waiting agents wait for, so nothing started outlives the test.
func cmdTmuxWait(ts *testscript.TestScript, neg bool, args []string) {
	escapes := len(args) > 0 && args[0] == "-e"
	if escapes {
		args = args[1:]
	}
	if len(args) != 3 {
		ts.Fatalf("usage: tmuxwait [-e] SOCKET TARGET REGEX")
	}
	sock, target := ts.MkAbs(args[0]), args[1]
	re, err := regexp.Compile("(?m)" + args[2])
	ts.Check(err)
	if mark := "TMUXWAIT_" + regexp.MustCompile(`\W`).ReplaceAllString(filepath.Base(sock), "_"); ts.Getenv(mark) == "" {
		ts.Setenv(mark, "1")
		ts.Defer(func() {
			_ = os.WriteFile(filepath.Join(ts.Getenv("WORK"), "release"), nil, 0o644)
			_ = exec.Command("tmux", "-S", sock, "kill-server").Run()
		})
	}
	capture := []string{"-S", sock, "capture-pane", "-p", "-t", target}
	if escapes {
		capture = append(capture, "-e")
	}
	var pane []byte
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		pane, err = exec.Command("tmux", capture...).Output()
		if err == nil && re.Match(pane) {
			ts.Stdout().Write(pane)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("pane %s never showed %q; last capture (%v):\n%s", target, args[2], err, pane)
}
