package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/clustertest"
	"github.com/plagd/plagd/invindex"
)

var testSecret = []byte("the-shared-secret-of-this-test")

// startServer serves node on a loopback port and returns its address.
func startServer(t *testing.T, node cluster.Node, sec Security) (string, *Server) {
	t.Helper()
	s, err := NewServer(node, sec, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return l.Addr().String(), s
}

func dial(t *testing.T, addr string, sec Security, opts Options) *Client {
	t.Helper()
	c, err := Dial(context.Background(), addr, sec, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// remoteNodes returns k clients of k servers, each wrapping a LocalNode,
// splitting the space of p like cluster.NewLocalNodes.
func remoteNodes(t *testing.T, p invindex.Params, k int) []cluster.Node {
	bounds := invindex.SplitRange(p.SpaceSize(), k)
	nodes := make([]cluster.Node, k)
	for i := range nodes {
		addr, _ := startServer(t, cluster.NewLocalNode(bounds[i], bounds[i+1]), Security{Secret: testSecret})
		nodes[i] = dial(t, addr, Security{Secret: testSecret}, Options{Timeout: time.Minute})
	}
	return nodes
}

func stateBytes(t *testing.T, st *cluster.NodeState) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := writeState(&b, st); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRemote_SameAsLocal drives a random history (clustertest.History, as
// cluster's TestMaster_TopologyAndIncremental does) through a master over K
// local nodes and one over K gRPC nodes on loopback. After every run both must hold the
// brute-force reference table, row for row. Small batches and a small message
// budget make every call stream several messages.
func TestRemote_SameAsLocal(t *testing.T) {
	withPart(t, 256)
	for _, dfCap := range []int{0, 4} {
		for _, k := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("dfcap=%d/K=%d", dfCap, k), func(t *testing.T) {
				s := seed(t)
				rng := rand.New(rand.NewPCG(s, 1))
				gen := &clustertest.TextGen{Rng: rand.New(rand.NewPCG(s, 2))}
				base := cluster.Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, MinShared: 2, TopK: 3, BatchSize: 5, DFCap: dfCap}
				remote := remoteNodes(t, base.Params, k)
				masters := []*cluster.Master{
					cluster.NewMaster(cluster.NewLocalNodes(base.Params, k), zerolog.Nop()),
					cluster.NewMaster(remote, zerolog.Nop()),
				}
				archives := []*clustertest.Archive{clustertest.NewArchive(base.TopK), clustertest.NewArchive(base.TopK)}
				h := clustertest.NewHistory(rng, gen)
				for run := 1; run <= 25; run++ {
					changes := h.Next()
					full := run == 1 || rng.IntN(10) == 0
					want := clustertest.Reference(h.Live, base)
					var tables [2][]cluster.Row
					for i, m := range masters {
						a := archives[i]
						a.Apply(changes)
						if err := a.Run(context.Background(), m, int64(run), full, base); err != nil {
							t.Fatalf("master %d run %d: %v", i, run, err)
						}
						tables[i] = a.Table()
					}
					if !slices.Equal(tables[1], tables[0]) {
						t.Fatalf("run %d (full=%v): remote table differs from the in-process one\nremote %v\n local %v", run, full, tables[1], tables[0])
					}
					if !slices.Equal(tables[0], want) {
						t.Fatalf("run %d: table differs from the reference", run)
					}
				}
				// The committed slices are the same bytes on both sides, and a
				// snapshot installed into a fresh remote node comes back intact.
				for i, n := range masters[0].Nodes() {
					lst, lgen := n.Snapshot()
					rst, rgen := remote[i].Snapshot()
					if rst == nil || rgen != lgen || !bytes.Equal(stateBytes(t, rst), stateBytes(t, lst)) {
						t.Fatalf("node %d: remote snapshot (gen %d) differs from local (gen %d)", i, rgen, lgen)
					}
					lo, hi := n.Range()
					// Queries ("check a file") counted by the remote node equal
					// those of the local one, partial counts streamed in several
					// messages; another generation is refused as stale.
					tok := invindex.NewTokenizer(base.Params)
					var texts []string
					for _, text := range h.Live {
						texts = append(texts, text)
					}
					slices.Sort(texts)
					texts = append(texts, gen.Text(), gen.Text())
					if len(texts) > 12 {
						texts = texts[len(texts)-12:]
					}
					nonEmpty := 0
					for _, text := range texts {
						_, chunks, checks := tok.DocChunks(text)
						a, _ := slices.BinarySearch(chunks, uint32(lo))
						b := len(chunks)
						if hi < 1<<32 {
							b, _ = slices.BinarySearch(chunks, uint32(hi))
						}
						q := cluster.Query{Gen: lgen, Self: 1 << 30, Chunks: chunks[a:b], Checks: checks[a:b], DFCap: dfCap}
						want, err := n.(cluster.Querier).Query(context.Background(), q)
						if err != nil {
							t.Fatal(err)
						}
						got, err := remote[i].(cluster.Querier).Query(context.Background(), q)
						if err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("node %d: remote query %v, local %v", i, got, want)
						}
						if len(got) > 0 {
							nonEmpty++
						}
						q.Gen = lgen + 1
						if _, err := remote[i].(cluster.Querier).Query(context.Background(), q); !errors.Is(err, cluster.ErrStale) {
							t.Fatalf("node %d: query for another generation: %v, want ErrStale", i, err)
						}
					}
					if nonEmpty == 0 {
						t.Fatalf("node %d: no query found anything", i)
					}
					addr, _ := startServer(t, cluster.NewLocalNode(lo, hi), Security{Secret: testSecret})
					fresh := dial(t, addr, Security{Secret: testSecret}, Options{})
					if err := fresh.Install(lst, lgen); err != nil {
						t.Fatal(err)
					}
					if st, g := fresh.Snapshot(); g != lgen || !bytes.Equal(stateBytes(t, st), stateBytes(t, lst)) {
						t.Fatalf("node %d: installed state does not come back", i)
					}
				}
			})
		}
	}
}

// TestRemote_Sentinels: ErrStale and ErrNoRun survive the wire, so the
// master reacts to a remote node as to a local one.
func TestRemote_Sentinels(t *testing.T) {
	addr, _ := startServer(t, cluster.NewLocalNode(0, 1<<20), Security{Insecure: true})
	c := dial(t, addr, Security{}, Options{})
	if lo, hi := c.Range(); lo != 0 || hi != 1<<20 {
		t.Fatalf("range [%d,%d)", lo, hi)
	}
	err := c.Begin(context.Background(), cluster.RunSpec{Run: 5, Base: 4, Params: invindex.Params{WindowWords: 3, ChunkBits: 20}}, nil)
	if !errors.Is(err, cluster.ErrStale) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Begin on a stale node: %v, want ErrStale naming %s", err, addr)
	}
	if _, err := c.Build(context.Background()); !errors.Is(err, cluster.ErrNoRun) {
		t.Fatalf("Build outside a run: %v, want ErrNoRun", err)
	}
}

// hangNode is a node whose Build never returns (a stuck process).
type hangNode struct {
	cluster.Node
	release chan struct{}
}

func (h hangNode) Build(context.Context) (cluster.BuildStats, error) {
	<-h.release
	return cluster.BuildStats{}, nil
}

// TestRemote_DeadNodeFailsInBoundedTime: a node that stops, or stops
// answering, in the middle of a run makes the call fail within the
// configured timeout with an error naming the node.
func TestRemote_DeadNodeFailsInBoundedTime(t *testing.T) {
	spec := cluster.RunSpec{Run: 1, Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, Full: true}
	const timeout = 500 * time.Millisecond
	docs := []invindex.DocChunks{{Doc: 1, Chunks: []uint32{1, 2, 3}, Checks: []uint8{1, 2, 3}}}

	t.Run("stopped", func(t *testing.T) {
		addr, srv := startServer(t, cluster.NewLocalNode(0, 1<<20), Security{Insecure: true})
		c := dial(t, addr, Security{}, Options{Timeout: timeout})
		if err := c.Begin(context.Background(), spec, nil); err != nil {
			t.Fatal(err)
		}
		srv.Stop()
		start := time.Now()
		err := c.Deliver(context.Background(), docs, true)
		if err == nil || !strings.Contains(err.Error(), addr) {
			t.Fatalf("Deliver to a stopped node: %v, want an error naming %s", err, addr)
		}
		if d := time.Since(start); d > timeout+time.Second {
			t.Fatalf("failed after %s, deadline %s", d, timeout)
		}
	})
	t.Run("hung", func(t *testing.T) {
		h := hangNode{Node: cluster.NewLocalNode(0, 1<<20), release: make(chan struct{})}
		addr, _ := startServer(t, h, Security{Insecure: true})
		defer close(h.release) // before the server's cleanup Stop
		c := dial(t, addr, Security{}, Options{Timeout: timeout})
		if err := c.Begin(context.Background(), spec, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Deliver(context.Background(), docs, true); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err := c.Build(context.Background())
		if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "did not answer") {
			t.Fatalf("Build on a hung node: %v, want a deadline error naming %s", err, addr)
		}
		if d := time.Since(start); d < timeout/2 || d > timeout+time.Second {
			t.Fatalf("failed after %s, deadline %s", d, timeout)
		}
	})
}

// freezer is a TCP proxy that can stop forwarding without closing anything:
// a peer that vanished from the network (power loss, partition).
type freezer struct {
	l      net.Listener
	frozen chan struct{}
	stop   chan struct{} // closed at the end of the test
}

func newFreezer(t *testing.T, target string) *freezer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{l: l, frozen: make(chan struct{}), stop: make(chan struct{})}
	t.Cleanup(func() { l.Close(); close(f.stop) })
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			t.Cleanup(func() { in.Close(); out.Close() })
			go f.pipe(in, out)
			go f.pipe(out, in)
		}
	}()
	return f
}

func (f *freezer) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		select {
		case <-f.frozen:
			<-f.stop // swallow everything from now on
			return
		default:
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// TestRemote_KeepaliveNoticesVanishedPeer: with a long call timeout, a node
// that silently disappears in the middle of a call is still given up within
// the keepalive bound (KeepaliveTime + KeepaliveTimeout; gRPC enforces at
// least 10 s for the former).
func TestRemote_KeepaliveNoticesVanishedPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 15 s")
	}
	h := hangNode{Node: cluster.NewLocalNode(0, 1<<20), release: make(chan struct{})}
	addr, _ := startServer(t, h, Security{Insecure: true})
	defer close(h.release)
	f := newFreezer(t, addr)
	opts := Options{Timeout: time.Minute, KeepaliveTime: 10 * time.Second, KeepaliveTimeout: 2 * time.Second}
	c := dial(t, f.l.Addr().String(), Security{}, opts)
	if err := c.Begin(context.Background(), cluster.RunSpec{Run: 1, Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, Full: true}, nil); err != nil {
		t.Fatal(err)
	}
	close(f.frozen)
	start := time.Now()
	_, err := c.Build(context.Background())
	d := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), f.l.Addr().String()) {
		t.Fatalf("Build through a frozen link: %v", err)
	}
	if d > 20*time.Second {
		t.Fatalf("gave up after %s, keepalive bound is 12 s", d)
	}
	t.Logf("gave up after %s: %v", d.Round(time.Millisecond), err)
}
