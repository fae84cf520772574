package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/plagd/plagd/extract"
)

// grandchildArg marks the sleep process the "grandchild" handler starts, so
// that the tests can find it in /proc.
const grandchildArg = "317.25"

var sink [][]byte

// TestMain registers handlers that misbehave on purpose, then lets Main
// turn this test binary into a sandbox child when a Pool started it.
func TestMain(m *testing.M) {
	Handle("echo", func(c []byte, _, _ string, _ extract.Options) (extract.Result, error) {
		return extract.Result{Text: string(c)}, nil
	})
	Handle("alloc", func([]byte, string, string, extract.Options) (extract.Result, error) {
		for { // 16 MiB at a time, touched, kept: grows until something stops it
			b := make([]byte, 16<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			sink = append(sink, b)
		}
	})
	Handle("bigalloc", func([]byte, string, string, extract.Options) (extract.Result, error) {
		n := 2_000_000_000
		b := make([]struct{ a, b, c, d int64 }, n) // 64 GB at once, as the PDF library's xref table
		return extract.Result{Text: fmt.Sprint(len(b))}, nil
	})
	Handle("spin", func([]byte, string, string, extract.Options) (extract.Result, error) {
		spin()
		return extract.Result{}, nil
	})
	Handle("sleep", func([]byte, string, string, extract.Options) (extract.Result, error) {
		time.Sleep(time.Hour)
		return extract.Result{}, nil
	})
	Handle("panic", func([]byte, string, string, extract.Options) (extract.Result, error) { panic("boom in the handler") })
	Handle("gopanic", func([]byte, string, string, extract.Options) (extract.Result, error) {
		go func() { panic("boom in a goroutine") }()
		select {}
	})
	Handle("exit", func([]byte, string, string, extract.Options) (extract.Result, error) {
		os.Exit(3)
		return extract.Result{}, nil
	})
	Handle("garbage", func([]byte, string, string, extract.Options) (extract.Result, error) {
		protoOut.Write([]byte("\x00\x00\x00\x10this is no gob!!"))
		return extract.Result{Text: "after the garbage"}, nil
	})
	Handle("stdout", func([]byte, string, string, extract.Options) (extract.Result, error) {
		fmt.Println("a library printing to standard output")
		os.Stdout.Write([]byte{0, 0, 0, 1, 0xff})
		return extract.Result{Text: "clean answer"}, nil
	})
	Handle("grandchild", func([]byte, string, string, extract.Options) (extract.Result, error) {
		if err := exec.Command("sleep", grandchildArg).Start(); err != nil {
			return extract.Result{}, err
		}
		spin()
		return extract.Result{}, nil
	})
	Handle("badreason", func([]byte, string, string, extract.Options) (extract.Result, error) {
		return extract.Result{}, &extract.Error{Kind: extract.ErrCorrupt, Reason: "malformed hex string \x10 % \x1f0/\xa0\xff" + strings.Repeat("x", 5000)}
	})
	Handle("flags", func([]byte, string, string, extract.Options) (extract.Result, error) {
		return extract.Result{Text: "flagged text", Flags: hostileFlags()}, nil
	})
	Main()
	os.Exit(m.Run())
}

// proc is a process seen in /proc.
type proc struct {
	pid, ppid, pgid int
	state           string
	cmdline         string
}

// processes lists every process of the machine.
func processes(t testing.TB) []proc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so cut at the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		out = append(out, proc{pid: pid, ppid: ppid, pgid: pgid, state: f[0],
			cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))})
	}
	return out
}

// children lists this process's child processes (zombies included: a
// child not reaped is still a leak).
func children(t testing.TB) []proc {
	var out []proc
	for _, p := range processes(t) {
		if p.ppid == os.Getpid() {
			out = append(out, p)
		}
	}
	return out
}

// waitNoProcess waits up to d for no process to match, and fails the test
// with the ones that remain.
func waitNoProcess(t testing.TB, d time.Duration, what string, match func(proc) bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var left []proc
		for _, p := range processes(t) {
			if match(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still alive %s later: %+v", what, d, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func osGetpid() int { return os.Getpid() }

func utf8Valid(s string) bool { return utf8.ValidString(s) }

// spin burns a CPU until the process is killed.
func spin() {
	x := uint64(time.Now().UnixNano())
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			panic("unreachable")
		}
	}
}

// ChildrenLeft is children for the external tests (hostile_test.go).
func ChildrenLeft(t testing.TB) int { return len(children(t)) }
