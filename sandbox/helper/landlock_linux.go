//go:build linux

package helper

import (
	"errors"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// Landlock's system calls, flags and rights, written out here rather than
// taken from go-landlock or x/sys/unix: importing those would have this
// package initialised after them, and after fmt (see the package
// comment). The numbers are the kernel's, the same on every architecture.
const (
	sysCreateRuleset = 444
	sysAddRule       = 445
	sysRestrictSelf  = 446

	createRulesetVersion = 1 << 0
	createRulesetErrata  = 1 << 1
	erratumScopedSignal  = 1 << 1 // ABI 6's signal scoping fixed; go-landlock counts ABI 6 only with it

	rulePathBeneath = 1
	ruleNetPort     = 2

	prSetNoNewPrivs = 38
	oPath           = 0x200000 // O_PATH, the same on every Linux Go runs on
)

// File access rights (ABI 1 to 3), the TCP right (ABI 4), the scopes
// (ABI 6).
const (
	fsExecute = 1 << iota
	fsWriteFile
	fsReadFile
	fsReadDir
	fsRemoveDir
	fsRemoveFile
	fsMakeChar
	fsMakeDir
	fsMakeReg
	fsMakeSock
	fsMakeFifo
	fsMakeBlock
	fsMakeSym
	fsRefer
	fsTruncate

	netConnectTCP = 1 << 1

	scopeAbstractUnixSocket = 1 << 0
	scopeSignal             = 1 << 1
)

const (
	// handledFS is every file access right up to ABI 3 (truncate
	// included): what is not granted is denied. IOCTL on devices (ABI 5)
	// is left alone, as terminals need it.
	handledFS = 1<<15 - 1
	// The rights granted, as go-landlock's RODirs, RWDirs and their Files
	// counterparts grant them; a file (anything not a folder) gets those
	// of fileRights only.
	readRights  = fsExecute | fsReadFile | fsReadDir
	writeRights = fsWriteFile | fsRemoveDir | fsRemoveFile | fsMakeChar | fsMakeDir | fsMakeReg |
		fsMakeSock | fsMakeFifo | fsMakeBlock | fsMakeSym | fsTruncate
	fileRights = fsExecute | fsWriteFile | fsReadFile | fsTruncate
)

// rulesetAttr is struct landlock_ruleset_attr up to ABI 6.
type rulesetAttr struct {
	fs, net, scoped uint64
}

// pathBeneath is struct landlock_path_beneath_attr (packed: the kernel
// reads its first 12 bytes).
type pathBeneath struct {
	allowed uint64
	fd      int32
}

// netPort is struct landlock_net_port_attr.
type netPort struct {
	allowed, port uint64
}

// grant is a path and the rights it gets when it is a folder.
type grant struct {
	path   string
	rights uint64
}

// grants are p's paths: reads (everything, or the declared paths), writes
// (with renaming and linking in and out: refer), the devices.
func grants(p Policy) []grant {
	var out []grant
	if p.Strict {
		for _, r := range p.Read {
			out = append(out, grant{r, readRights})
		}
	} else {
		out = append(out, grant{"/", readRights})
	}
	for _, w := range p.Write {
		out = append(out, grant{w, readRights | writeRights | fsRefer})
	}
	for _, d := range Devices {
		out = append(out, grant{d, readRights | writeRights})
	}
	return out
}

// handled is what p's ruleset handles: files always; TCP connections
// unless the network is all; signals and abstract sockets with Scope.
func handled(p Policy) rulesetAttr {
	attr := rulesetAttr{fs: handledFS}
	if p.Net != NetAll && p.Net != "" {
		attr.net = netConnectTCP
	}
	if p.Scope {
		attr.scoped = scopeAbstractUnixSocket | scopeSignal
	}
	return attr
}

// check refuses p when it is not built for ABI 3 or later, or when the
// kernel's ABI (have) cannot apply all it handles: the helper never
// applies less than p says.
func check(p Policy, have int) error {
	if p.ABI < ABIFiles {
		return errors.New("the rules need Landlock ABI " + strconv.Itoa(ABIFiles) + " or later, not " + strconv.Itoa(p.ABI))
	}
	need := needs(handled(p))
	switch {
	case have == 0:
		return errors.New("this kernel has no Landlock (Linux 5.13 or later with Landlock enabled is needed)")
	case have == 5 && need == 6:
		return errors.New("this kernel's Landlock (ABI 5, or 6 without the fix to its signal scoping) cannot apply them (ABI 6 is needed)")
	case have < need:
		return errors.New("this kernel's Landlock (ABI " + strconv.Itoa(have) + ") cannot apply them (ABI " + strconv.Itoa(need) + " is needed)")
	}
	return nil
}

// needs is the least ABI that handles attr.
func needs(attr rulesetAttr) int {
	switch {
	case attr.scoped != 0:
		return 6
	case attr.net != 0:
		return 4
	}
	return ABIFiles
}

// KernelABI is the Landlock ABI this kernel offers (0: none), counting
// ABI 6 only where its signal scoping is fixed, as go-landlock does. The
// run's probe and the helper both ask it, so that a run never builds rules
// the helper would refuse.
func KernelABI() int {
	v, _, e := syscall.RawSyscall(sysCreateRuleset, 0, 0, createRulesetVersion)
	if e != 0 {
		return 0
	}
	if v >= 6 {
		errata, _, e := syscall.RawSyscall(sysCreateRuleset, 0, 0, createRulesetErrata)
		if e != 0 || errata&erratumScopedSignal == 0 {
			v = 5
		}
	}
	return int(v)
}

// ruleset makes p's ruleset, and returns its file descriptor. A path that
// does not exist (or cannot be opened) is left out: the kernel grants on
// what exists, and a grant left out only denies more.
func ruleset(p Policy) (int, error) {
	if err := check(p, KernelABI()); err != nil {
		return -1, err
	}
	attr := handled(p)
	r, _, e := syscall.Syscall(sysCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return -1, errors.New("landlock_create_ruleset: " + e.Error())
	}
	fd := int(r)
	for _, g := range grants(p) {
		if err := addPath(fd, g); err != nil {
			_ = syscall.Close(fd)
			return -1, err
		}
	}
	for _, port := range p.Ports {
		rule := netPort{allowed: netConnectTCP, port: uint64(port)}
		if _, _, e := syscall.Syscall6(sysAddRule, uintptr(fd), ruleNetPort, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); e != 0 {
			_ = syscall.Close(fd)
			return -1, errors.New("landlock_add_rule: TCP port " + strconv.Itoa(int(port)) + ": " + e.Error())
		}
	}
	return fd, nil
}

// addPath grants g to the ruleset fd: g's rights on a folder, those of
// them that apply to files on anything else.
func addPath(ruleset int, g grant) error {
	fd, err := syscall.Open(g.path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return errors.New(g.path + ": " + err.Error())
	}
	rights := g.rights & handledFS
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		rights &= fileRights
	}
	rule := pathBeneath{allowed: rights, fd: int32(fd)}
	if _, _, e := syscall.Syscall6(sysAddRule, uintptr(ruleset), rulePathBeneath, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); e != 0 {
		return errors.New("landlock_add_rule: " + g.path + ": " + e.Error())
	}
	return nil
}

// enforce confines this process by p: the calling thread, which is the
// one that execs (the rules then bind the program it becomes, and all it
// starts).
func enforce(p Policy) error {
	fd, err := ruleset(p)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	// Never unlocked: the process becomes the program.
	runtime.LockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e != 0 {
		return errors.New("prctl(PR_SET_NO_NEW_PRIVS): " + e.Error())
	}
	if _, _, e := syscall.RawSyscall(sysRestrictSelf, uintptr(fd), 0, 0); e != 0 {
		return errors.New("landlock_restrict_self: " + e.Error())
	}
	return nil
}

func execve(_ Policy, path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
