package faultproxy_test

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/internal/faultproxy"
	"github.com/plagd/plagd/invindex"
)

// These tests drive the gRPC node transport (cluster/remote) through the
// proxy: a master's client talking to a `plagd node` server over a link
// that is slow, or that silently stops carrying anything.

var secret = remote.Security{Secret: []byte("faultproxy-test-shared-secret")}

var params = invindex.Params{WindowWords: 3, ChunkBits: 20}

// nodeBehindProxy serves a fresh node owning the whole chunk-ID space and
// returns a proxy in front of it.
func nodeBehindProxy(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	srv, err := remote.NewServer(cluster.NewLocalNode(0, params.SpaceSize()), secret, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	p, err := faultproxy.New(l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() }) // before srv.Stop: cleanups run last-in first-out
	return p
}

func dial(t *testing.T, addr string, opts remote.Options) *remote.Client {
	t.Helper()
	c, err := remote.Dial(context.Background(), addr, secret, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// texts is a small corpus whose documents share passages.
func texts() []cluster.Text {
	base := []string{
		"the quick brown fox jumps over the lazy dog near the river bank",
		"a journey of a thousand miles begins with a single step they say",
		"to be or not to be that is the question whether tis nobler in the mind",
	}
	var out []cluster.Text
	for i := range 12 {
		s := base[i%3] + fmt.Sprintf(" document %d has its own ending words number %d", i, i*7) + " " + base[(i+1)%3]
		out = append(out, cluster.Text{Doc: invindex.DocID(i + 1), Text: s})
	}
	return out
}

type runResult struct {
	chunked []cluster.Chunked
	counts  [][]invindex.Pair
}

// fullRun runs one full run over texts on n and commits it as generation 1.
func fullRun(ctx context.Context, n cluster.Node) (runResult, error) {
	var r runResult
	if err := n.Begin(ctx, cluster.RunSpec{Run: 1, Params: params, Full: true}, nil); err != nil {
		return r, err
	}
	ts := texts()
	var err error
	if r.chunked, err = n.Chunk(ctx, ts); err != nil {
		return r, err
	}
	docs := make([]invindex.DocChunks, len(r.chunked))
	ids := make([]invindex.DocID, len(r.chunked))
	for i, c := range r.chunked {
		docs[i] = invindex.DocChunks{Doc: c.Doc, Chunks: c.Chunks, Checks: c.Checks}
		ids[i] = c.Doc
	}
	if err := n.Deliver(ctx, docs, true); err != nil {
		return r, err
	}
	if _, err := n.Build(ctx); err != nil {
		return r, err
	}
	if r.counts, err = n.Count(ctx, ids); err != nil {
		return r, err
	}
	return r, n.Commit(ctx, 1)
}

// TestGRPC_DelayedLinkStillCorrect: 50 ms each way on every chunk of bytes;
// every call still succeeds and the results equal an in-process node's.
func TestGRPC_DelayedLinkStillCorrect(t *testing.T) {
	p := nodeBehindProxy(t)
	p.SetDelay(50 * time.Millisecond)
	c := dial(t, p.Addr(), remote.Options{Timeout: 30 * time.Second})
	start := time.Now()
	got, err := fullRun(context.Background(), c)
	if err != nil {
		t.Fatalf("run through a delayed link: %v", err)
	}
	t.Logf("run through a 50 ms link took %s", time.Since(start).Round(time.Millisecond))
	want, err := fullRun(context.Background(), cluster.NewLocalNode(0, params.SpaceSize()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("results through the proxy differ from an in-process node's:\n got %+v\nwant %+v", got, want)
	}
	if shared := len(want.counts[0]); shared == 0 {
		t.Fatal("the corpus shares nothing: the comparison proves little")
	}
}

// TestGRPC_BlackHoleFailsWithinDeadline: the link stops carrying bytes in the
// middle of a run; the call fails within the call timeout with an error
// naming the node's address, and the node answers again once the link heals.
func TestGRPC_BlackHoleFailsWithinDeadline(t *testing.T) {
	p := nodeBehindProxy(t)
	const timeout = 2 * time.Second
	c := dial(t, p.Addr(), remote.Options{Timeout: timeout})
	ctx := context.Background()
	if err := c.Begin(ctx, cluster.RunSpec{Run: 1, Params: params, Full: true}, nil); err != nil {
		t.Fatal(err)
	}
	p.SetDrop(true)
	start := time.Now()
	_, err := c.Chunk(ctx, texts())
	d := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), p.Addr()) {
		t.Fatalf("Chunk through a black hole: %v, want an error naming %s", err, p.Addr())
	}
	if d < timeout/2 || d > timeout+2*time.Second {
		t.Fatalf("gave up after %s, call timeout %s", d, timeout)
	}
	t.Logf("gave up after %s: %v", d.Round(time.Millisecond), err)
	p.SetDrop(false)
	if err := c.Abort(ctx); err != nil {
		t.Fatalf("Abort after the link healed: %v", err)
	}
}

// TestGRPC_BlackHoleFailsWithinKeepalive: with a call timeout far longer than
// the test, the keepalive alone gives up on a silent link, within
// KeepaliveTime + KeepaliveTimeout (gRPC raises KeepaliveTime to at least
// 10 s) plus a margin.
func TestGRPC_BlackHoleFailsWithinKeepalive(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 12 s")
	}
	p := nodeBehindProxy(t)
	opts := remote.Options{Timeout: 10 * time.Minute, KeepaliveTime: 10 * time.Second, KeepaliveTimeout: 2 * time.Second}
	c := dial(t, p.Addr(), opts)
	ctx := context.Background()
	if err := c.Begin(ctx, cluster.RunSpec{Run: 1, Params: params, Full: true}, nil); err != nil {
		t.Fatal(err)
	}
	p.SetDrop(true)
	start := time.Now()
	_, err := c.Build(ctx)
	d := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), p.Addr()) {
		t.Fatalf("Build through a black hole: %v, want an error naming %s", err, p.Addr())
	}
	if bound := opts.KeepaliveTime + opts.KeepaliveTimeout + 5*time.Second; d > bound {
		t.Fatalf("gave up after %s, keepalive bound %s", d, bound)
	}
	t.Logf("gave up after %s: %v", d.Round(time.Millisecond), err)
	// the client closed the dead connection; once the link heals a new one
	// reaches the node (which still holds the open run)
	p.SetDrop(false)
	p.Reset()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Abort(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Abort after the link healed: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
