//go:build unix

package sandbox

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	// The helper served from init, as architect serves it; TestMain's
	// dispatch below is reached only without it.
	_ "github.com/architect-dev/architect/sandbox/helper/serve"
)

// TestMain lets the test binary be the sandbox's helper (as architect is)
// and a small probe program the helper runs confined:
// `probe write PATH`, `probe read PATH`, `probe dial HOST:PORT`,
// `probe signal PID` (SIGURG, which a Go program ignores), `probe remove PATH`,
// `probe rename FROM TO`, `probe umount PATH`, `probe remount PATH`, `probe caps`,
// `probe env NAME`, `probe mem PID` (opens /proc/PID/mem: the ptrace right).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case Command:
			os.Exit(Main(os.Args[2:]))
		case "probe":
			os.Exit(probeMain(os.Args[2:]))
		}
	}
	EnableHelper()
	os.Exit(m.Run())
}

func probeMain(args []string) int {
	var err error
	switch args[0] {
	case "write":
		err = os.WriteFile(args[1], []byte("x"), 0o644)
	case "remove":
		err = os.Remove(args[1])
	case "rename": // rename FROM TO
		err = os.Rename(args[1], args[2])
	case "caps": // the capabilities it runs with, as /proc/self/status says
		var b []byte
		if b, err = os.ReadFile("/proc/self/status"); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(l, "Cap") {
					fmt.Println(l)
				}
			}
		}
	case "umount", "remount": // the mount on PATH, which a confined process may not change
		err = changeMount(args[0], args[1])
	case "read":
		_, err = os.ReadFile(args[1])
	case "dial":
		var c net.Conn
		if c, err = net.Dial("tcp", args[1]); err == nil {
			_ = c.Close()
		}
	case "signal":
		pid, _ := strconv.Atoi(args[1])
		err = syscall.Kill(pid, syscall.SIGURG)
	case "env":
		fmt.Println(os.Getenv(args[1]))
	case "mem": // open /proc/PID/mem, which needs the right to ptrace PID
		var f *os.File
		if f, err = os.Open("/proc/" + args[1] + "/mem"); err == nil {
			_ = f.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		return 1
	}
	return 0
}
