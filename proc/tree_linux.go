package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// tree is the processes of one run: its leader's process group and every
// descendant, wherever it went. With a run cgroup the run has a slot of
// its own, which holds them all; without one, they are found through the
// children lists: once the leader has died, whatever is left of the run
// has been re-parented to this process (a subreaper) or descends from
// something that has.
type tree struct {
	id   string
	slot *slot // nil without a run cgroup
	pgid int
	told bool // the supervisor was told of the group
}

func newTree(id string) *tree {
	t := &tree{id: id}
	if c := currentCgroup(); c != nil {
		if s, err := c.get(); err == nil {
			t.slot = s
			return t
		}
	}
	ensureReaper()
	return t
}

func (t *tree) attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if t.slot != nil {
		a.UseCgroupFD, a.CgroupFD = true, t.slot.dirFD
	}
	return a
}

// start starts cmd, made with attr, and registers its group. When the
// start into the run's cgroup fails, it is tried once more without it: if
// that works, the cgroup was the cause (clone3 refused by a seccomp
// filter, a cgroup this user may not write), and runs go on without it.
func (t *tree) start(cmd func() *exec.Cmd) (*exec.Cmd, error) {
	c := cmd()
	err := register(c, t.id)
	if err == nil && t.slot == nil {
		t.pgid, t.told = c.Process.Pid, true
		tellGroup('+', t.pgid)
	}
	if err == nil || t.slot == nil {
		return c, err
	}
	s := t.slot
	t.slot = nil
	ensureReaper()
	c2 := cmd()
	if err2 := register(c2, t.id); err2 != nil {
		s.c.put(s) // the program's fault, not the cgroup's
		return c2, err2
	}
	s.close()
	cgroupFailed(err)
	t.pgid, t.told = c2.Process.Pid, true
	tellGroup('+', t.pgid)
	return c2, nil
}

// signal sends sig to the whole run while its leader may still live: the
// group, and each process of the run that left it (setsid), which the
// group signal does not reach. Those are found first: once the group has
// the signal, processes die and their children move to new parents while
// they are looked for. A process gets the signal once.
func (t *tree) signal(pgid int, sig syscall.Signal) {
	var others []pinned
	if t.slot != nil {
		for _, pid := range cgroupPids(t.slot.dir) {
			if st, ok := readStat(pid); ok && st.pgid != pgid {
				if p, ok := pin(pid); ok {
					if inCgroup(pid, t.slot.rel) {
						others = append(others, p)
					} else {
						p.close()
					}
				}
			}
		}
	} else {
		for _, p := range t.escaped(pgid) {
			if st, ok := readStat(p.pid); ok && st.pgid != pgid {
				others = append(others, p)
			} else {
				p.close()
			}
		}
	}
	_ = syscall.Kill(-pgid, sig)
	for _, p := range others {
		p.signal(sig)
	}
	closeAll(others)
}

// escaped returns, pinned, the descendants of the leader pgid and the
// adopted orphans of this run (its group or its marker), with theirs. The
// leader's tree is read first: a process that is not in it any more when
// it is read has been re-parented before the adopted orphans are read.
func (t *tree) escaped(pgid int) []pinned {
	ps := pinDescendants([]pinned{{pid: pgid, fd: -1}})
	have := map[int]bool{pgid: true}
	for _, p := range ps {
		have[p.pid] = true
	}
	self := os.Getpid()
	var more []pinned
	startMu.Lock()
	for _, pid := range adopted() {
		if have[pid] {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.ppid != self {
			continue
		}
		if id, _ := markOf(pid); st.pgid == pgid || id == t.id {
			if p, ok := pin(pid); ok {
				more = append(more, p)
				have[pid] = true
			}
		}
	}
	startMu.Unlock()
	ps = append(ps, more...)
	for _, p := range pinDescendants(more) {
		if have[p.pid] {
			p.close()
			continue
		}
		have[p.pid] = true
		ps = append(ps, p)
	}
	return ps
}

// finish ends what is left of the run once its leader has been waited
// for. A run that was stopped sent SIGTERM to all of it at stopAt: what
// is left gets until stopAt+grace. After a normal exit, what is left (a
// background process, a daemon) gets SIGTERM now and the grace period.
// Then SIGKILL, until nothing is left. Nothing is scanned when nothing is
// left: one read of cgroup.events, or of this process's children list.
func (t *tree) finish(pgid int, stopped bool, stopAt time.Time, grace time.Duration) {
	deadline := stopAt.Add(grace)
	if s := t.slot; s != nil {
		if reaper.Load() {
			defer reapAdopted() // what the slot held may have been adopted
		}
		if !stopped {
			if s.empty = !s.populated(); s.empty {
				return
			}
			t.signal(pgid, syscall.SIGTERM)
			deadline = time.Now().Add(grace)
		}
		for i := 0; !s.waitEmpty(deadline) && i < 10; i++ {
			s.kill()
			deadline = time.Now().Add(time.Second)
		}
		return
	}
	ps, unsure := leftovers(pgid, t.id)
	if len(ps) == 0 && !unsure {
		return
	}
	if !stopped {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		deadline = time.Now().Add(grace)
	}
	for _, p := range ps {
		// A stopped run's own processes had SIGTERM at the stop; what it
		// did not know of (not its group, not its marker) gets it now.
		if !stopped || !t.owns(p.pid, pgid) {
			p.signal(syscall.SIGTERM)
		}
	}
	waitAll(ps, deadline)
	closeAll(ps)
	untrack(pgid)
	Sweep()
}

// owns reports whether pid is in the run's group or carries its marker.
func (t *tree) owns(pid, pgid int) bool {
	st, ok := readStat(pid)
	id, _ := markOf(pid)
	return ok && st.pgid == pgid || id == t.id
}

// release gives the run's slot back, or tells the supervisor that its
// group has ended.
func (t *tree) release() {
	if t.told {
		tellGroup('-', t.pgid)
		t.told = false
	}
	if t.slot != nil {
		t.slot.c.put(t.slot)
		t.slot = nil
	}
}

// inCgroup reports whether pid is in the cgroup rel (a path as
// /proc/PID/cgroup shows it) or under it.
func inCgroup(pid int, rel string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "0::"); ok {
			return p == rel || strings.HasPrefix(p, rel+"/")
		}
	}
	return false
}

// killRest is KillAll's part beyond the groups: the run cgroup, and the
// adopted orphans. The caller holds startMu.
func killRest() {
	if c := madeCg.Load(); c != nil {
		c.kill()
	}
	killAdopted()
}
