//go:build unix

package proc

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/matryer/is"
)

// The macOS sweep's choice of processes, on a made-up process table: the
// leader's descendants out of its group, the marked orphans and theirs;
// not the group's own, nor anyone else's.
func TestEscapees(t *testing.T) {
	procs := []psEntry{
		{pid: 100, ppid: 50, pgid: 100}, // the leader
		{pid: 101, ppid: 100, pgid: 100},
		{pid: 102, ppid: 101, pgid: 102}, // setsid
		{pid: 103, ppid: 102, pgid: 102},
		{pid: 200, ppid: 1, pgid: 200}, // orphaned, marked
		{pid: 201, ppid: 200, pgid: 200},
		{pid: 300, ppid: 1, pgid: 300},  // orphaned, another run's
		{pid: 400, ppid: 50, pgid: 400}, // unrelated
		{pid: 500, ppid: 1, pgid: 100},  // orphaned, still in the group
	}
	marks := map[int]string{100: "S.1", 101: "S.1", 102: "S.1", 103: "S.1", 200: "S.1", 201: "", 300: "S.2", 400: "", 500: "S.1"}
	var asked []int
	markOf := func(pid int) string { asked = append(asked, pid); return marks[pid] }
	for _, tc := range []struct {
		name string
		id   string
		want []int
	}{
		{"by parentage and marker", "S.1", []int{102, 103, 200, 201}},
		{"without a marker", "", []int{102, 103}},
		{"another run", "S.2", []int{102, 103, 300}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			asked = nil
			got := escapees(procs, 100, tc.id, markOf)
			slices.Sort(got)
			is.Equal(got, tc.want)
			for _, pid := range asked {
				is.Equal(pid == 200 || pid == 300 || pid == 500, true) // only init's children are read
			}
		})
	}
}

// procargs builds a KERN_PROCARGS2 buffer as macOS lays it out.
func procargs(exe string, args, env []string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(args)))
	b = append(b, exe...)
	b = append(b, 0, 0, 0, 0) // the path's end and padding
	for _, a := range args {
		b = append(append(b, a...), 0)
	}
	for _, e := range env {
		b = append(append(b, e...), 0)
	}
	b = append(b, 0)
	// Then the "apple strings", which are not the environment.
	return append(b, "executable_path="+exe+"\x00"+RunIDEnv+"=Z.9\x00"...)
}

func TestProcargsEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		buf  []byte
		want string
	}{
		{"marked", procargs("/bin/sh", []string{"sh", "-c", "sleep 9"}, []string{"HOME=/Users/a", RunIDEnv + "=S.7", "PATH=/bin"}), "S.7"},
		{"no arguments", procargs("/bin/sh", nil, []string{RunIDEnv + "=S.8"}), "S.8"},
		{"not marked", procargs("/bin/sh", []string{"sh"}, []string{"HOME=/Users/a"}), ""},
		{"an argument that looks like the marker", procargs("/bin/sh", []string{"sh", RunIDEnv + "=X.1"}, nil), ""},
		{"empty environment", procargs("/bin/sh", []string{"sh"}, nil), ""},
		{"truncated", []byte{2, 0}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is.New(t).Equal(runIDOf(procargsEnv(tc.buf)), tc.want)
		})
	}
}
