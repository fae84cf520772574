package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/store"
)

const clusterSecret = "0123456789abcdef-cluster-test-secret"

// secretFile writes the cluster secret to a file of mode 0600.
func secretFile(t testing.TB) string {
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(clusterSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// nodeServer is an in-process `plagd node`: a remote.Server over an empty
// LocalNode on a loopback port.
type nodeServer struct {
	addr string
	srv  *remote.Server
	node *faultyNode
}

// startNodeServer serves a fresh node at addr ("127.0.0.1:0" for any port).
func startNodeServer(t testing.TB, addr string) *nodeServer {
	t.Helper()
	var l net.Listener
	var err error
	for try := 0; try < 50; try++ { // the old address may take a moment to free
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	n := &faultyNode{Node: cluster.NewLocalNode(0, 0)}
	srv, err := remote.NewServer(n, remote.Security{Secret: []byte(clusterSecret)}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	n.stop = srv.Stop
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return &nodeServer{addr: l.Addr().String(), srv: srv, node: n}
}

// faultyNode counts the run calls it serves; once failAt is reached it
// stops its whole server (every connection drops, as when a node dies) and
// fails the call.
type faultyNode struct {
	cluster.Node
	stop   func()
	calls  atomic.Int64
	failAt atomic.Int64 // 0: never
}

func (f *faultyNode) hit() error {
	n := f.calls.Add(1)
	if at := f.failAt.Load(); at > 0 && n >= at {
		go f.stop()
		return errors.New("node stopped by the test")
	}
	return nil
}

func (f *faultyNode) Chunk(ctx context.Context, b []cluster.Text) ([]cluster.Chunked, error) {
	if err := f.hit(); err != nil {
		return nil, err
	}
	return f.Node.Chunk(ctx, b)
}

func (f *faultyNode) Deliver(ctx context.Context, d []invindex.DocChunks, index bool) error {
	if err := f.hit(); err != nil {
		return err
	}
	return f.Node.Deliver(ctx, d, index)
}

func (f *faultyNode) Count(ctx context.Context, d []invindex.DocID) ([][]invindex.Pair, error) {
	if err := f.hit(); err != nil {
		return nil, err
	}
	return f.Node.Count(ctx, d)
}

// clusterConfig is enginetest.Config with remote nodes at addrs.
func clusterConfig(t testing.TB, url string, addrs []string) config.Config {
	cfg := enginetest.Config(t, url, 0)
	cfg.Cluster.Nodes = addrs
	cfg.Cluster.SecretFile = secretFile(t)
	cfg.Cluster.CallTimeout = 30 * time.Second
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestCluster_SameResultAnyTopology is the design's topology invariant (the result does not depend on how many nodes there are or how the chunk-ID space is split) with
// remote nodes: 1, 2 and 4 node servers in this process, and 1, 2 and 4
// `plagd node` processes, the random change sequence of
// TestEngine_IncrementalEqualsFull, and after every run the similarities
// equal the reference row for row; the bytes shipped are reported.
func TestCluster_SameResultAnyTopology(t *testing.T) {
	for _, c := range []struct {
		k     int
		procs bool
	}{{1, false}, {2, false}, {4, false}, {1, true}, {2, true}, {4, true}} {
		k := c.k
		name := "servers=" + strconv.Itoa(k)
		if c.procs {
			name = "processes=" + strconv.Itoa(k)
		}
		t.Run(name, func(t *testing.T) {
			if c.procs && testing.Short() {
				t.Skip("starts plagd node processes; skipped in -short")
			}
			seed := enginetest.Seed(t)
			url := pgtest.NewDB(t)
			pool := pgtest.Pool(t, url)
			var addrs []string
			for range k {
				if c.procs {
					addrs = append(addrs, startNodeProc(t, "127.0.0.1:0", secretFile(t)).addr)
				} else {
					addrs = append(addrs, startNodeServer(t, "127.0.0.1:0").addr)
				}
			}
			cfg := clusterConfig(t, url, addrs)
			e := NewEngine(cfg, pool, enginetest.Logger(t))
			defer e.Close()
			m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 7))}
			for i := 0; i < 25; i++ {
				m.Step()
			}
			rep := mustRun(t, e, false)
			if rep.Kind != "full" || rep.Nodes != k || rep.BytesToNodes == 0 || rep.BytesFromNodes == 0 {
				t.Fatalf("first run: %+v; want full on %d nodes with bytes counted", rep, k)
			}
			onNodes := rep.RelatedOnNodes
			checkAgainstReference(t, pool, cfg, "after the first run")
			for run := 0; run < 12; run++ {
				for i := m.Rng.IntN(8); i >= 0; i-- {
					m.Step()
				}
				rep := mustRun(t, e, false)
				if rep.Kind != "incremental" && rep.Kind != "none" {
					t.Fatalf("run %d is %s (%s), want incremental", run, rep.Kind, rep.Reason)
				}
				if rep.Kind == "incremental" && rep.Nodes != k {
					t.Fatalf("run %d used %d nodes, want %d", run, rep.Nodes, k)
				}
				t.Logf("run %d: %d changed, %d bytes to nodes, %d from nodes", run, rep.Changed, rep.BytesToNodes, rep.BytesFromNodes)
				checkAgainstReference(t, pool, cfg, "after incremental run "+strconv.Itoa(run))
				onNodes += rep.RelatedOnNodes
			}
			if onNodes == 0 {
				t.Fatal("no related-documents query was joined on the nodes")
			}
			incr := enginetest.Stored(t, pool)
			mustRun(t, e, true)
			if d := enginetest.DiffRows(enginetest.Stored(t, pool), incr); d != "" {
				t.Fatalf("full run differs from the incremental result:\n%s", d)
			}
			// A restarted master (new engine) loads the saved index and ships
			// it to the nodes: still incremental, still exact.
			m.Add()
			e2 := NewEngine(cfg, pool, enginetest.Logger(t))
			defer e2.Close()
			if rep := mustRun(t, e2, false); rep.Kind != "incremental" {
				t.Fatalf("after a master restart: %s run (%s), want incremental", rep.Kind, rep.Reason)
			}
			checkAgainstReference(t, pool, cfg, "after a master restart")
		})
	}
}

// runStatus is the status and error of a run in the runs table.
func runStatus(t testing.TB, e *Engine, id int64) (string, string) {
	var status string
	var msg *string
	if err := e.pool.QueryRow(context.Background(), `select status, error from runs where id = $1`, id).Scan(&status, &msg); err != nil {
		t.Fatal(err)
	}
	return status, store.Deref(msg)
}

// TestCluster_NodeFailure: a node that dies in the middle of a run fails the
// run, naming the node; nothing is committed and the changes stay pending;
// the next run goes on with the other nodes and is exact; a fresh node at the
// old address rejoins and receives its slice.
func TestCluster_NodeFailure(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	servers := []*nodeServer{startNodeServer(t, "127.0.0.1:0"), startNodeServer(t, "127.0.0.1:0"), startNodeServer(t, "127.0.0.1:0")}
	addrs := []string{servers[0].addr, servers[1].addr, servers[2].addr}
	cfg := clusterConfig(t, url, addrs)
	cfg.Engine.BatchSize = 3 // many calls per run, so that the failure falls in the middle
	metrics := &byteObserver{}
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	e.Observer = metrics
	defer e.Close()
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 17))}
	for i := 0; i < 30; i++ {
		m.Step()
	}
	mustRun(t, e, false)
	checkAgainstReference(t, pool, cfg, "after the first run")
	for i := 0; i < 20; i++ {
		m.Add()
	}
	before := enginetest.Stored(t, pool)
	pending := pendingCount(t, e)

	victim := servers[1]
	victim.node.failAt.Store(victim.node.calls.Load() + 4)
	rep, err := e.Run(context.Background(), false)
	if err == nil {
		t.Fatal("the run succeeded although a node died in its middle")
	}
	if !strings.Contains(err.Error(), victim.addr) {
		t.Fatalf("the error does not name the node %s: %v", victim.addr, err)
	}
	if st, msg := runStatus(t, e, rep.ID); st != "failed" || !strings.Contains(msg, victim.addr) {
		t.Fatalf("runs row of the failed run: %s %q", st, msg)
	}
	if d := enginetest.DiffRows(enginetest.Stored(t, pool), before); d != "" {
		t.Fatalf("a failed run changed the similarities:\n%s", d)
	}
	if n := pendingCount(t, e); n != pending {
		t.Fatalf("%d changes pending after the failed run, %d before", n, pending)
	}
	t.Logf("failed run: %v (bytes to nodes %d, from %d)", err, rep.BytesToNodes, rep.BytesFromNodes)
	if rep.BytesToNodes == 0 || metrics.to.Load() == 0 || metrics.from.Load() == 0 {
		t.Fatalf("bytes of the failed run not counted: report %d/%d", rep.BytesToNodes, rep.BytesFromNodes)
	}

	// The next run goes on with the two others, re-split.
	rep = mustRun(t, e, false)
	if rep.Nodes != 2 || rep.Kind != "incremental" {
		t.Fatalf("run after the failure: %s on %d nodes, want incremental on 2", rep.Kind, rep.Nodes)
	}
	checkAgainstReference(t, pool, cfg, "after the run on the remaining nodes")

	// A fresh, empty node at the old address rejoins.
	fresh := startNodeServer(t, victim.addr)
	for i := 0; i < 5; i++ {
		m.Step()
	}
	m.Add()
	rep = mustRun(t, e, false)
	if rep.Nodes != 3 || rep.Kind != "incremental" {
		t.Fatalf("run after the node came back: %s on %d nodes, want incremental on 3", rep.Kind, rep.Nodes)
	}
	if lo, hi := fresh.node.Range(); lo == hi {
		t.Fatal("the node that came back holds no slice")
	}
	checkAgainstReference(t, pool, cfg, "after the node came back")

	// A node restarted between runs behind the master's back (same address,
	// empty) is noticed as stale and reloaded: still exact.
	fresh.srv.Stop()
	again := startNodeServer(t, victim.addr)
	m.Add()
	rep = mustRun(t, e, false)
	if rep.Nodes != 3 {
		t.Fatalf("run after a silent node restart used %d nodes, want 3", rep.Nodes)
	}
	checkAgainstReference(t, pool, cfg, "after a silent node restart")

	// No node at all: the run fails, listing each node.
	for _, s := range []*nodeServer{servers[0], servers[2], again} {
		s.srv.Stop()
	}
	m.Add()
	_, err = e.Run(context.Background(), false)
	if err == nil || !strings.Contains(err.Error(), "no cluster node answered") || !strings.Contains(err.Error(), addrs[0]) || !strings.Contains(err.Error(), addrs[2]) {
		t.Fatalf("run without nodes: %v", err)
	}
}

// byteObserver is an Observer that sums the bytes runs exchanged with nodes.
type byteObserver struct{ to, from atomic.Int64 }

func (o *byteObserver) ObserveRun(RunReport) {}
func (o *byteObserver) ObserveNodeBytes(to, from int64) {
	o.to.Add(to)
	o.from.Add(from)
}

func pendingCount(t testing.TB, e *Engine) int {
	var n int
	if err := e.pool.QueryRow(context.Background(), `select count(*) from plagd_changes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// plagdBinary builds cmd/plagd once per test binary.
func plagdBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "plagd-daemon-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "plagd")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/plagd/plagd/cmd/plagd").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// nodeProc is a `plagd node` process.
type nodeProc struct {
	cmd  *exec.Cmd
	addr string
}

// startNodeProc starts `plagd node --listen addr` with the secret file and
// waits for it to serve. The same address may be taken again after a kill.
func startNodeProc(t testing.TB, addr, secret string) *nodeProc {
	t.Helper()
	for try := 0; ; try++ {
		cmd := exec.Command(plagdBinary(t), "node", "--listen", addr, "--log-format", "json")
		cmd.Env = append(os.Environ(), "PLAGD_CONFIG=", "PLAGD_CLUSTER_SECRET_FILE="+secret)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		var lines []string
		for sc.Scan() {
			var line struct{ Message, Listen string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "node serving" {
				go func() { // keep draining the log
					for sc.Scan() {
					}
				}()
				p := &nodeProc{cmd: cmd, addr: line.Listen}
				t.Cleanup(func() { p.kill() })
				return p
			}
			lines = append(lines, sc.Text())
		}
		cmd.Wait()
		if try < 20 && strings.Contains(strings.Join(lines, "\n"), "address already in use") {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		t.Fatalf("plagd node exited before serving:\n%s", strings.Join(lines, "\n"))
	}
}

func (p *nodeProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Wait()
}

// TestCluster_KillNodeProcess: two `plagd node` processes; a sequence of
// runs, each with one node SIGKILLed at a random moment (0-300 ms into the
// run, within 1.5 times the length of a run). A run either commits the exact result or fails leaving the previous
// run intact; the next run converges; the restarted node rejoins.
func TestCluster_KillNodeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes; skipped in -short")
	}
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	secret := secretFile(t)
	procs := []*nodeProc{startNodeProc(t, "127.0.0.1:0", secret), startNodeProc(t, "127.0.0.1:0", secret)}
	cfg := clusterConfig(t, url, []string{procs[0].addr, procs[1].addr})
	cfg.Cluster.SecretFile = secret
	cfg.Engine.BatchSize = 5
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e.Close()
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: rand.New(rand.NewPCG(seed, 19))}
	for i := 0; i < 80; i++ {
		m.Step()
	}
	mustRun(t, e, false)
	checkAgainstReference(t, pool, cfg, "after the first run")
	// Calibrate: kill within 0-300 ms, but no later than 1.5 times a typical
	// run, so that most kills fall inside a run on a fast machine.
	for j := 0; j < 30; j++ {
		m.Step()
	}
	window := min(300*time.Millisecond, mustRun(t, e, false).Duration*3/2)
	t.Logf("kills fall within %s of a run's start", window)
	failed, committed := 0, 0
	for i := 0; i < 10; i++ {
		for j := 20 + m.Rng.IntN(20); j >= 0; j-- {
			m.Step()
		}
		before := enginetest.Stored(t, pool)
		gen, _ := store.LastCommittedRun(context.Background(), pool)
		victim := m.Rng.IntN(2)
		delay := time.Duration(m.Rng.Int64N(int64(window)))
		full := m.Rng.IntN(4) == 0
		done := make(chan error, 1)
		var rep RunReport
		go func() {
			var err error
			rep, err = e.Run(context.Background(), full)
			done <- err
		}()
		time.Sleep(delay)
		procs[victim].kill()
		err := <-done
		t.Logf("iteration %d: node %d killed %s into a run (full=%v, phases %v): %v", i, victim, delay, full, rep.Phases, err)
		after, _ := store.LastCommittedRun(context.Background(), pool)
		if err != nil {
			failed++
			if after != gen {
				t.Fatalf("iteration %d: the run failed (%v) but run %d committed", i, err, after)
			}
			if d := enginetest.DiffRows(enginetest.Stored(t, pool), before); d != "" {
				t.Fatalf("iteration %d: the run failed, yet the similarities changed:\n%s", i, d)
			}
			if !strings.Contains(err.Error(), procs[victim].addr) {
				t.Fatalf("iteration %d: the error does not name the killed node %s: %v", i, procs[victim].addr, err)
			}
		} else {
			committed++
			checkAgainstReference(t, pool, cfg, fmt.Sprintf("iteration %d: the committed run", i))
		}
		// The next run goes on with the survivor and converges.
		m.Add()
		if rep := mustRun(t, e, false); rep.Nodes != 1 {
			t.Fatalf("iteration %d: the run after the kill used %d nodes, want 1", i, rep.Nodes)
		}
		checkAgainstReference(t, pool, cfg, fmt.Sprintf("iteration %d: the run on the survivor", i))
		// The killed node restarts, empty, on its address and rejoins.
		procs[victim] = startNodeProc(t, procs[victim].addr, secret)
		m.Add()
		if rep := mustRun(t, e, false); rep.Nodes != 2 {
			t.Fatalf("iteration %d: the run after the restart used %d nodes, want 2", i, rep.Nodes)
		}
		checkAgainstReference(t, pool, cfg, fmt.Sprintf("iteration %d: the run after the restart", i))
	}
	t.Logf("%d runs failed by the kill, %d committed before it (seed %d)", failed, committed, seed)
}
