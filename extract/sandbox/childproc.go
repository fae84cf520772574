package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// child is one running sandbox process, seen from the parent.
type child struct {
	cmd      *exec.Cmd
	pid      int
	in       *os.File      // its requests pipe (our write end)
	out      *bufio.Reader // its answers pipe (our read end)
	outFile  *os.File
	stderr   *stderrBuf
	exited   chan struct{} // closed once the process is reaped
	served   int
	lastUsed time.Time
}

// startChild starts exe as a sandbox child.
func startChild(exe string, cfg Config) (*child, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ansR, ansW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	c := &child{stderr: newStderrBuf(stderrKeep), exited: make(chan struct{}), in: reqW, outFile: ansR,
		out: bufio.NewReaderSize(ansR, 64<<10), lastUsed: time.Now()}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(),
		envChild+"="+protocol,
		envMemory+"="+strconv.FormatInt(cfg.MemoryLimit, 10),
		envParent+"="+strconv.Itoa(os.Getpid()))
	if cfg.noAddressLimit {
		cmd.Env = append(cmd.Env, envNoRlimit+"=1")
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = reqR, ansW, c.stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = time.Second // a grandchild holding stderr open must not hold Wait
	err = cmd.Start()
	reqR.Close() // the child's ends
	ansW.Close()
	if err != nil {
		reqW.Close()
		ansR.Close()
		return nil, err
	}
	c.cmd, c.pid = cmd, cmd.Process.Pid
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// runResult says how a request ended when no answer came: why is the
// reason the parent killed the child ("" when it died by itself), rss the
// resident memory that made it kill, protocol whether the child sent
// something that is not an answer.
type runResult struct {
	err      error
	why      string
	rss      int64
	protocol bool
}

// run sends req and waits for the answer, killing the child's process
// group when timeout passes, ctx ends, or its resident memory passes mem.
func (c *child) run(ctx context.Context, req *request, timeout time.Duration, mem int64) (response, runResult) {
	c.stderr.reset()
	var why atomic.Value
	var rss atomic.Int64
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		var deadline <-chan time.Time
		if timeout > 0 {
			t := time.NewTimer(timeout)
			defer t.Stop()
			deadline = t.C
		}
		tick := time.NewTicker(rssEvery)
		defer tick.Stop()
		kill := func(reason string) {
			why.Store(reason)
			killGroup(c.pid)
		}
		for {
			select {
			case <-done:
				return
			case <-c.exited:
				return
			case <-deadline:
				kill("timeout")
				return
			case <-ctx.Done():
				kill("canceled")
				return
			case <-tick.C:
				if n, err := rssBytes(c.pid); err == nil && n > mem {
					rss.Store(n)
					kill("memory")
					return
				}
			}
		}
	}()
	var resp response
	err := writeFrame(c.in, req)
	protocol := false
	if err == nil {
		if err = readFrame(c.out, &resp, mem); errors.As(err, new(protocolError)) {
			protocol = true
		} else if err == nil && resp.Seq != req.Seq {
			err, protocol = fmt.Errorf("answer %d to request %d", resp.Seq, req.Seq), true
		}
	}
	close(done)
	<-watched
	res := runResult{err: err, rss: rss.Load(), protocol: protocol}
	if w, ok := why.Load().(string); ok {
		// Killed by the watch: whatever the pipes said is a consequence.
		res.why = w
		if res.err == nil {
			res.err = fmt.Errorf("killed (%s)", w)
		}
	}
	if res.err == nil {
		c.served++
	}
	return resp, res
}

// reap waits up to d for the child to be reaped, and closes the parent's
// pipe ends; it reports whether the child was reaped.
func (c *child) reap(d time.Duration) bool {
	defer c.in.Close()
	defer c.outFile.Close()
	select {
	case <-c.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// exitCode is the child's exit code (-1 if killed by a signal or running).
func (c *child) exitCode() int {
	select {
	case <-c.exited:
		return c.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// exitStatus describes how the child ended, for the log.
func (c *child) exitStatus() string {
	select {
	case <-c.exited:
		return c.cmd.ProcessState.String()
	default:
		return "running"
	}
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
