//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// system is what the machine offers: kind "landlock" with its ABI, or ""
// with why not.
type system struct {
	kind string
	abi  int
	why  string
}

func (s system) name() string { return fmt.Sprintf("Landlock ABI %d", s.abi) }

// probe asks the kernel which Landlock ABI it has.
func probe() system {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return system{why: "this kernel has no Landlock (Linux 5.13 or later with Landlock enabled is needed)"}
	}
	return system{kind: "landlock", abi: v}
}

// handledFS is every file access right up to ABI 3 (truncate included):
// what is not granted below is denied. IOCTL on devices (ABI 5) is left
// alone, as terminals need it.
const handledFS = landlock.AccessFSSet((1 << 15) - 1)

// enforce confines this process (the thread that will exec, and so the
// program it becomes and all it starts) by p.
func enforce(p Policy) error {
	if p.ABI < abiFiles {
		return fmt.Errorf("the rules need Landlock ABI %d or later, not %d", abiFiles, p.ABI)
	}
	cfg := handled(p)
	fd, flags, err := cfg.NewRulesetFD(rules(p)...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return errors.New("nothing to enforce") // never the case: files are always handled
	}
	defer unix.Close(fd)
	// The rules bind the calling thread, which must be the one that
	// execs: never unlocked (the process becomes the program).
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	return ll.LandlockRestrictSelf(fd, flags)
}

// handled is what p's ruleset handles: files always; TCP connections
// unless the network is all; signals and abstract sockets with Scope.
func handled(p Policy) landlock.Config {
	cfg := landlock.Config{HandledAccessFS: handledFS}
	if p.Net != NetAll && p.Net != "" {
		cfg.HandledAccessNet = landlock.AccessNetSet(ll.AccessNetConnectTCP)
	}
	if p.Scope {
		cfg.Scoped = landlock.ScopedSet(ll.ScopeAbstractUnixSocket | ll.ScopeSignal)
	}
	return cfg
}

// rules are p's grants: reads (everything, or the declared paths), writes,
// the devices, the ports.
func rules(p Policy) []landlock.Rule {
	var out []landlock.Rule
	if p.Strict {
		dirs, files := split(p.Read)
		out = append(out, landlock.RODirs(dirs...), landlock.ROFiles(files...))
	} else {
		out = append(out, landlock.RODirs("/"))
	}
	dirs, files := split(p.Write)
	out = append(out, landlock.RWDirs(dirs...).WithRefer(), landlock.RWFiles(files...))
	devDirs, devFiles := split(devices)
	out = append(out, landlock.RWDirs(devDirs...), landlock.RWFiles(devFiles...))
	for _, port := range p.Ports {
		out = append(out, landlock.ConnectTCP(port))
	}
	return out
}

// split sorts paths into folders and files; a path missing is left out
// (the kernel grants on what exists).
func split(paths []string) (dirs, files []string) {
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	return dirs, files
}

func execve(_ Policy, path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}

func platformWrap(p Policy, path string, args []string, arg0 string) (string, []string, string, error) {
	exe, err := self()
	if err != nil {
		return "", nil, "", err
	}
	hargs, err := helperArgs(p, path, args, arg0)
	return exe, hargs, os.Args[0], err
}
