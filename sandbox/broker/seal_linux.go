//go:build linux

package broker

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Seal keeps the keys named in names from other processes: their values
// are overwritten in the environment the process started with (which
// /proc/PID/environ shows, to root too; Go's own copy is untouched), and
// the process is made undumpable, so that another process of the same
// user (an agent, a check) can neither read its memory nor attach to it.
// Core dumps are off with it.
func Seal(names []string) error {
	err := scrubEnviron(names)
	if e := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err == nil {
		err = e
	}
	return err
}

// scrubEnviron overwrites, in this process's initial environment block,
// the value of each variable named in names with '*'.
func scrubEnviron(names []string) error {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	// The fields after the command name (which may hold spaces) in ")".
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return fmt.Errorf("/proc/self/stat: unexpected %q", stat)
	}
	fields := strings.Fields(string(stat[i+1:]))
	// env_start and env_end are fields 50 and 51; fields[0] is field 3.
	if len(fields) < 49 {
		return fmt.Errorf("/proc/self/stat: no env_start and env_end")
	}
	start, err1 := strconv.ParseInt(fields[47], 10, 64)
	end, err2 := strconv.ParseInt(fields[48], 10, 64)
	if err1 != nil || err2 != nil || end <= start {
		return fmt.Errorf("/proc/self/stat: bad env_start and env_end")
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return err
	}
	at := 0
	for _, kv := range bytes.Split(block, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte("=")); ok && len(v) > 0 && slices.Contains(names, string(k)) {
			off := at + len(k) + 1
			if _, err := mem.WriteAt(bytes.Repeat([]byte("*"), len(v)), start+int64(off)); err != nil {
				return err
			}
		}
		at += len(kv) + 1
	}
	return nil
}
