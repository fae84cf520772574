package faultproxy

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"
)

// echoServer accepts connections on loopback and writes back what it reads.
// It is stopped, and its connections closed, at the end of the test.
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				io.Copy(c, c)
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return l.Addr().String()
}

// checkNoLeak fails the test if the goroutines started during it are still
// running a moment after it ends.
func checkNoLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func newProxy(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads it back, failing after timeout.
func roundTrip(c net.Conn, msg []byte, timeout time.Duration) ([]byte, error) {
	c.SetDeadline(time.Now().Add(timeout))
	defer c.SetDeadline(time.Time{})
	errc := make(chan error, 1)
	go func() { _, err := c.Write(msg); errc <- err }()
	got := make([]byte, len(msg))
	_, err := io.ReadFull(c, got)
	if werr := <-errc; err == nil {
		err = werr
	}
	return got, err
}

func TestForwards(t *testing.T) {
	checkNoLeak(t)
	p := newProxy(t, echoServer(t))
	if p.Addr() == "" || p.Target() == "" {
		t.Fatal("no address")
	}
	// several connections at once, each with a payload larger than the queue
	// (many chunks), so that back-pressure is exercised
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", p.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			msg := make([]byte, 2<<20+i)
			r := rand.New(rand.NewPCG(uint64(i), 1))
			for j := range msg {
				msg[j] = byte(r.Uint32())
			}
			got, err := roundTrip(c, msg, 10*time.Second)
			if err != nil || !bytes.Equal(got, msg) {
				t.Errorf("connection %d: err %v, equal %v", i, err, bytes.Equal(got, msg))
			}
		}()
	}
	wg.Wait()
}

func TestHalfClose(t *testing.T) {
	checkNoLeak(t)
	p := newProxy(t, echoServer(t))
	c := dial(t, p.Addr())
	msg := []byte("last words")
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(c) // the echo, then EOF once the server closes
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("got %q, %v", got, err)
	}
	waitConns(t, p, 0)
}

func TestDelay(t *testing.T) {
	checkNoLeak(t)
	p := newProxy(t, echoServer(t))
	c := dial(t, p.Addr())
	if _, err := roundTrip(c, []byte("warm up"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	const d = 100 * time.Millisecond
	p.SetDelay(d)
	start := time.Now()
	got, err := roundTrip(c, []byte("hello"), 5*time.Second)
	rtt := time.Since(start)
	if err != nil || string(got) != "hello" {
		t.Fatalf("got %q, %v", got, err)
	}
	if rtt < 2*d {
		t.Fatalf("round trip %s, want at least 2 x %s", rtt, d)
	}
	// a delay is latency, not a cap on throughput: 64 chunks in flight
	// take about one delay per direction, not 64
	msg := make([]byte, 64*chunkSize)
	start = time.Now()
	if got, err := roundTrip(c, msg, 10*time.Second); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("bulk: %v", err)
	}
	if bulk := time.Since(start); bulk < 2*d || bulk > 20*d {
		t.Fatalf("64 chunks took %s with a delay of %s per direction", bulk, d)
	}
	p.SetDelay(0)
	start = time.Now()
	if _, err := roundTrip(c, []byte("quick"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if rtt := time.Since(start); rtt >= d {
		t.Fatalf("round trip %s after SetDelay(0)", rtt)
	}
}

func TestDrop(t *testing.T) {
	checkNoLeak(t)
	p := newProxy(t, echoServer(t))
	c := dial(t, p.Addr())
	if _, err := roundTrip(c, []byte("before"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.SetDrop(true)
	p.SetDrop(true) // idempotent
	if _, err := c.Write([]byte("during")); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read while dropping: %q, %v; want nothing until the deadline", buf[:n], err)
	}
	if p.Conns() != 1 {
		t.Fatalf("%d connections while dropping, want the one kept open", p.Conns())
	}
	// a connection opened during the black hole is accepted but stalls too
	c2 := dial(t, p.Addr())
	if _, err := roundTrip(c2, []byte("x"), 200*time.Millisecond); err == nil {
		t.Fatal("a new connection got through while dropping")
	}
	p.SetDrop(false)
	// the held bytes arrive, in order, then the link works as before
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len("during"))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "during" {
		t.Fatalf("after SetDrop(false): %q, %v", got, err)
	}
	if got, err := roundTrip(c, []byte("after"), 5*time.Second); err != nil || string(got) != "after" {
		t.Fatalf("round trip after SetDrop(false): %q, %v", got, err)
	}
}

func TestReset(t *testing.T) {
	checkNoLeak(t)
	p := newProxy(t, echoServer(t))
	c1, c2 := dial(t, p.Addr()), dial(t, p.Addr())
	for _, c := range []net.Conn{c1, c2} {
		if _, err := roundTrip(c, []byte("ping"), 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	p.SetDrop(true) // Reset also ends connections stalled by a drop
	p.Reset()
	for i, c := range []net.Conn{c1, c2} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatalf("connection %d: read %d bytes after Reset", i, n)
		} else if errors.As(err, new(net.Error)) && err.(net.Error).Timeout() {
			t.Fatalf("connection %d still open after Reset", i)
		}
	}
	waitConns(t, p, 0)
	// the proxy goes on accepting
	p.SetDrop(false)
	c3 := dial(t, p.Addr())
	if got, err := roundTrip(c3, []byte("again"), 5*time.Second); err != nil || string(got) != "again" {
		t.Fatalf("after Reset: %q, %v", got, err)
	}
}

func TestClose(t *testing.T) {
	checkNoLeak(t)
	target := echoServer(t)
	p, err := New(target)
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, p.Addr())
	if _, err := roundTrip(c, []byte("ping"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.SetDelay(time.Hour) // Close must not wait for held chunks
	if _, err := c.Write([]byte("held")); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection open after Close")
	}
	if c, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		c.Close()
		t.Fatal("the listener accepts after Close")
	}
}

func TestUnreachableTarget(t *testing.T) {
	checkNoLeak(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := l.Addr().String()
	l.Close() // nothing listens there now
	p := newProxy(t, target)
	c := dial(t, p.Addr())
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.As(err, new(net.Error)) && err.(net.Error).Timeout() {
		t.Fatalf("read through a proxy to nowhere: %v, want the connection closed", err)
	}
}

// TestConcurrentSwitches flips every fault while traffic flows (run with -race).
func TestConcurrentSwitches(t *testing.T) {
	checkNoLeak(t)
	p := newProxy(t, echoServer(t))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p.SetDelay(time.Duration(i%3) * time.Millisecond)
			p.SetDrop(i%2 == 0)
			if i%7 == 0 {
				p.Reset()
			}
			_ = p.Conns()
			time.Sleep(time.Millisecond)
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", p.Addr())
				if err != nil {
					continue
				}
				// bytes that come back are the bytes sent, in order, or nothing
				msg := []byte("0123456789abcdef")
				got, err := roundTrip(c, msg, 50*time.Millisecond)
				if err == nil && !bytes.Equal(got, msg) {
					t.Errorf("got %q, sent %q", got, msg)
				}
				c.Close()
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	p.SetDrop(false)
	p.Close()
	if n := p.Conns(); n != 0 {
		t.Fatalf("%d connections after Close", n)
	}
}

func waitConns(t *testing.T, p *Proxy, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for p.Conns() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections, want %d", p.Conns(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
