//go:build unix

package proc

import (
	"bufio"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/architect-dev/architect/usererr"
)

// SupervisorCommand is the hidden command with which architect starts
// itself as the supervisor of its runs (see Contain): the command line
// hands its arguments to Supervise.
const SupervisorCommand = "__supervise"

// Supervise is the supervisor: args are the session (the marker of the
// supervised process's runs) and the run cgroup ("" for none); in is the
// pipe from the supervised process. It reads what the process tells it
// ("+PGID" and "-PGID" as process groups start and end outside a cgroup,
// "nocgroup" when the cgroup was given up, "done" after a clean end) until
// end of file, which comes when the supervised process has died, however
// it died: its write end is then closed by the kernel. Unless told "done",
// it ends the runs: cgroup.kill of the run cgroup (waiting for it to empty,
// then removing it), SIGKILL to every process group still open, and,
// without a cgroup, one scan of the machine for processes carrying the
// session's marker (descendants that left their group). It ignores
// SIGINT, SIGTERM and SIGHUP: a Ctrl-C or a closed terminal is for the
// supervised process, and the supervisor lives exactly as long as it.
func Supervise(args []string, in io.Reader) int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if len(args) != 2 {
		usererr.Say(os.Stderr, usererr.LevelError, "the supervisor needs a session and a cgroup")
		return 2
	}
	marker, cg := args[0], args[1]
	groups := map[int]bool{}
	scan := cg == ""
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "done":
			return 0
		case line == "nocgroup":
			scan = true
		case len(line) > 1 && (line[0] == '+' || line[0] == '-'):
			if pgid, err := strconv.Atoi(line[1:]); err == nil && pgid > 1 {
				if line[0] == '+' {
					groups[pgid] = true
				} else {
					delete(groups, pgid)
				}
			}
		}
	}
	endRuns(marker, cg, groups, scan)
	return 0
}
