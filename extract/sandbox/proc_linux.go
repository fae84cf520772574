package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

// supported: the limits this package relies on exist on Linux.
const supported = true

// sysProcAttr makes a child lead its own process group (so that killing the
// group kills what it started too) and die with the parent.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group led by pid: the child and everything
// it started that did not leave the group (pdftoppm, tesseract).
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// rssBytes is the resident memory of process pid, from /proc/PID/statm.
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, err
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/statm: %q", pid, b)
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	return pages * int64(os.Getpagesize()), err
}

// takePipes moves the child's protocol stream off file descriptors 0 and 1:
// the returned files are the pipes from and to the parent, and descriptor
// 1 becomes a copy of 2 (standard error) and 0 reads /dev/null, so that
// whatever a library prints, or a program the child runs reads, never
// touches the protocol.
func takePipes() (in, out *os.File, err error) {
	inFD, err := syscall.Dup(0)
	if err != nil {
		return nil, nil, fmt.Errorf("dup stdin: %w", err)
	}
	outFD, err := syscall.Dup(1)
	if err != nil {
		return nil, nil, fmt.Errorf("dup stdout: %w", err)
	}
	syscall.CloseOnExec(inFD)
	syscall.CloseOnExec(outFD)
	if err := syscall.Dup3(2, 1, 0); err != nil {
		return nil, nil, fmt.Errorf("stdout to stderr: %w", err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, err
	}
	defer null.Close()
	if err := syscall.Dup3(int(null.Fd()), 0, 0); err != nil {
		return nil, nil, fmt.Errorf("stdin from /dev/null: %w", err)
	}
	return os.NewFile(uintptr(inFD), "sandbox-requests"), os.NewFile(uintptr(outFD), "sandbox-answers"), nil
}

// addressSlack is address space beyond the runtime's start-up reservation
// and the memory limit: thread stacks, the binary's data, heap
// fragmentation and the collector's metadata.
const addressSlack = 256 << 20

// limitSelf sets RLIMIT_AS to the address space this process already has
// (the Go runtime reserves about 1.2 GB on linux/amd64 at start-up, almost
// none of it resident) plus mem plus addressSlack.
func limitSelf(mem int64, addressSpace bool) error {
	if !addressSpace {
		return nil
	}
	vm, err := vmSize()
	if err != nil {
		return err
	}
	lim := uint64(vm + mem + addressSlack)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		return fmt.Errorf("RLIMIT_AS %d: %w", lim, err)
	}
	return nil
}

// vmSize is this process's address space (VmSize of /proc/self/status).
func vmSize() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
			f := bytes.Fields(v)
			if len(f) == 2 && string(f[1]) == "kB" {
				kb, err := strconv.ParseInt(string(f[0]), 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, fmt.Errorf("no VmSize in /proc/self/status")
}

// onCPULimit calls f when RLIMIT_CPU's soft limit is reached (SIGXCPU,
// which the Go runtime otherwise ignores).
func onCPULimit(f func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGXCPU)
	go func() {
		<-ch
		f()
	}()
}

// setCPULimit lets the process use seconds more CPU time from now (soft
// RLIMIT_CPU; the hard limit stays, so that it can be raised again for the
// next document); seconds <= 0 lifts the soft limit.
func setCPULimit(seconds int64) {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	cur := lim.Max
	if seconds > 0 {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return
		}
		used := ru.Utime.Sec + ru.Stime.Sec + 1
		cur = min(uint64(used+seconds), lim.Max)
	}
	lim.Cur = cur
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &lim)
}
