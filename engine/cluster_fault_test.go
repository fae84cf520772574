package engine

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/faultproxy"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/store"
)

// serveNode serves node with sec on a loopback port, like startNodeServer
// but with any node and any security; it returns the address.
func serveNode(t testing.TB, node cluster.Node, sec remote.Security) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := remote.NewServer(node, sec, zerolog.Nop())
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return l.Addr().String()
}

// proxyTo starts a fault proxy in front of target, closed at cleanup (before
// servers started earlier: cleanups run last-in first-out).
func proxyTo(t testing.TB, target string) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// trippingNode counts the per-run calls it serves (Begin, Chunk, Deliver,
// Build, Count: every call of a run before its commit) and, on the call
// numbered tripAt, calls trip before doing the work, so that a fault injected
// by trip (a black hole on the link) falls inside a run, at a call chosen by
// the test rather than by the scheduler.
type trippingNode struct {
	cluster.Node
	trip    func()
	calls   atomic.Int64
	tripAt  atomic.Int64 // 0: never
	tripped atomic.Bool
}

func (n *trippingNode) hit() {
	if c := n.calls.Add(1); c == n.tripAt.Load() {
		n.tripped.Store(true)
		n.trip()
	}
}

func (n *trippingNode) Begin(ctx context.Context, spec cluster.RunSpec, removed []invindex.DocID) error {
	n.hit()
	return n.Node.Begin(ctx, spec, removed)
}

func (n *trippingNode) Chunk(ctx context.Context, b []cluster.Text) ([]cluster.Chunked, error) {
	n.hit()
	return n.Node.Chunk(ctx, b)
}

func (n *trippingNode) Deliver(ctx context.Context, d []invindex.DocChunks, index bool) error {
	n.hit()
	return n.Node.Deliver(ctx, d, index)
}

func (n *trippingNode) Build(ctx context.Context) (cluster.BuildStats, error) {
	n.hit()
	return n.Node.Build(ctx)
}

func (n *trippingNode) Count(ctx context.Context, d []invindex.DocID) ([][]invindex.Pair, error) {
	n.hit()
	return n.Node.Count(ctx, d)
}

// committedState is what a failed run must leave as it was.
type committedState struct {
	sims    []enginetest.SimRow
	pending int
	gen     int64
}

func snapshotCommitted(t testing.TB, e *Engine, pool *pgxpool.Pool) committedState {
	t.Helper()
	gen, err := store.LastCommittedRun(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	return committedState{sims: enginetest.Stored(t, pool), pending: pendingCount(t, e), gen: gen}
}

// checkFailedRun: the run failed with an error naming every address in
// names, its runs row says so, and nothing was committed.
func checkFailedRun(t testing.TB, e *Engine, pool *pgxpool.Pool, before committedState, rep RunReport, err error, when string, names ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: the run succeeded", when)
	}
	for _, a := range names {
		if !strings.Contains(err.Error(), a) {
			t.Fatalf("%s: the error does not name %s: %v", when, a, err)
		}
	}
	if rep.ID == 0 {
		t.Fatalf("%s: the failed run has no id (report %+v)", when, rep)
	}
	if st, msg := runStatus(t, e, rep.ID); st != "failed" || msg != err.Error() {
		t.Fatalf("%s: runs row %d: %s %q, want failed with the run's error %q", when, rep.ID, st, msg, err)
	}
	if gen, _ := store.LastCommittedRun(context.Background(), pool); gen != before.gen {
		t.Fatalf("%s: the run failed, yet run %d is the last committed (was %d)", when, gen, before.gen)
	}
	if d := enginetest.DiffRows(enginetest.Stored(t, pool), before.sims); d != "" {
		t.Fatalf("%s: the run failed, yet the similarities changed:\n%s", when, d)
	}
	if n := pendingCount(t, e); n != before.pending {
		t.Fatalf("%s: %d changes pending after the failed run, %d before", when, n, before.pending)
	}
}

// runWith runs e while, after delay, fault is applied from another goroutine.
// It returns the run's report, duration and error.
func runWith(e *Engine, full bool, delay time.Duration, fault func()) (RunReport, time.Duration, error) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
			fault()
		case <-done:
		}
	}()
	start := time.Now()
	rep, err := e.Run(context.Background(), full)
	d := time.Since(start)
	close(done)
	<-finished // no fault lands in a later run
	return rep, d, err
}

// TestCluster_NetworkFaults: two nodes, the master reaching the second
// through a fault proxy. A slow link gives exact runs; a link that turns
// into a black hole in the middle of a run fails that run within the call
// timeout (plus the abort's), naming the node, committing nothing and leaving
// the changes pending; the next run goes on with the first node alone and is
// exact; once the link heals both nodes are used again, exactly. Connections
// cut during runs fail them or not, and the next run converges. Every
// committed run equals the reference.
func TestCluster_NetworkFaults(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	n1 := startNodeServer(t, "127.0.0.1:0")
	tn := &trippingNode{Node: cluster.NewLocalNode(0, 0)}
	p := proxyTo(t, serveNode(t, tn, remote.Security{Secret: []byte(clusterSecret)}))
	tn.trip = func() { p.SetDrop(true) }
	via := p.Addr()
	cfg := clusterConfig(t, url, []string{n1.addr, via})
	const callTimeout = 2 * time.Second
	cfg.Cluster.CallTimeout = callTimeout
	cfg.Engine.BatchSize = 5
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e.Close()
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: mrand.New(mrand.NewPCG(seed, 23))}
	for i := 0; i < 40; i++ {
		m.Step()
	}
	if rep := mustRun(t, e, false); rep.Nodes != 2 {
		t.Fatalf("first run on %d nodes, want 2", rep.Nodes)
	}
	checkAgainstReference(t, pool, cfg, "after the first run")
	// mustRunOn runs, checks the node count and the reference.
	mustRunOn := func(nodes int, when string) RunReport {
		t.Helper()
		rep := mustRun(t, e, false)
		if rep.Kind != "none" && rep.Nodes != nodes {
			t.Fatalf("%s: %s run on %d nodes, want %d", when, rep.Kind, rep.Nodes, nodes)
		}
		checkAgainstReference(t, pool, cfg, when)
		return rep
	}

	// 1. A slow link: every run commits, exactly.
	for i := 0; i < 3; i++ {
		d := time.Duration(20+m.Rng.IntN(31)) * time.Millisecond
		p.SetDelay(d)
		for j := 1 + m.Rng.IntN(8); j > 0; j-- {
			m.Step()
		}
		m.Add()
		rep := mustRunOn(2, fmt.Sprintf("delayed run %d (%s each way)", i, d))
		t.Logf("delayed run %d: %s each way, %d changed, %s", i, d, rep.Changed, rep.Duration.Round(time.Millisecond))
	}
	p.SetDelay(0)

	// Calibrate: the per-run calls node 2 serves for a run of 10 new documents.
	for i := 0; i < 10; i++ {
		m.Add()
	}
	c0 := tn.calls.Load()
	mustRunOn(2, "calibration run")
	perRun := tn.calls.Load() - c0
	t.Logf("node 2 serves %d calls in a run of 10 new documents", perRun)
	if perRun < 4 {
		t.Fatalf("only %d calls per run: the test cannot place a fault inside one", perRun)
	}

	// blackHoleCycle: a run whose link to node 2 turns into a black hole
	// (fault arms the hole); then, if stillDown, a run with the hole still
	// there (node 1 alone: it costs the 2 x 5 s of pinging node 2); then the
	// link heals and a run uses both nodes. It returns whether the first run
	// failed.
	blackHoleCycle := func(name string, stillDown bool, fault func() (time.Duration, func())) bool {
		t.Helper()
		for i := 0; i < 10; i++ {
			m.Add()
		}
		before := snapshotCommitted(t, e, pool)
		delay, apply := fault()
		rep, took, err := runWith(e, false, delay, apply)
		tn.tripAt.Store(0) // no trip in the runs that follow
		failed := err != nil
		if failed {
			t.Logf("%s: run failed after %s: %v", name, took.Round(time.Millisecond), err)
			checkFailedRun(t, e, pool, before, rep, err, name, via)
			// The failing call waits out the call timeout, then the abort
			// (one call per node) at most as long again.
			if bound := 2*callTimeout + pingTimeout + 5*time.Second; took > bound {
				t.Fatalf("%s: the run took %s to fail, bound %s", name, took, bound)
			}
			if took < callTimeout/2 {
				t.Fatalf("%s: the run failed after %s, before any call could time out", name, took)
			}
		} else {
			// The hole came before the run's first call to node 2 (its ping
			// failed: the run went on node 1 alone) or after its last one
			// before the commit (a node's failed Commit is only logged).
			t.Logf("%s: the run committed on %d nodes in %s", name, rep.Nodes, took.Round(time.Millisecond))
			checkAgainstReference(t, pool, cfg, name+": the committed run")
		}
		if stillDown {
			p.SetDrop(true)
			m.Add()
			start := time.Now()
			mustRunOn(1, name+": the run with the link still down")
			t.Logf("%s: the run on node 1 alone took %s", name, time.Since(start).Round(time.Millisecond))
		}
		// The link heals (bytes held meanwhile reach the node, late).
		p.SetDrop(false)
		m.Add()
		start := time.Now()
		mustRunOn(2, name+": the run after the link healed")
		t.Logf("%s: the run after the link healed took %s", name, time.Since(start).Round(time.Millisecond))
		return failed
	}

	// 2. The hole opens at a random call of node 2 within the run: the run
	// must fail. A call number the run does not reach leaves it to commit;
	// then try again.
	for attempt := 0; ; attempt++ {
		if attempt == 3 {
			t.Fatal("the black hole never fell inside a run")
		}
		at := 1 + m.Rng.Int64N(max(1, perRun*3/4))
		failed := blackHoleCycle(fmt.Sprintf("black hole at call %d", at), true, func() (time.Duration, func()) {
			tn.tripped.Store(false)
			tn.tripAt.Store(tn.calls.Load() + at)
			return time.Hour, func() {}
		})
		if tn.tripped.Load() != failed {
			t.Fatalf("black hole at call %d: tripped %v, run failed %v", at, tn.tripped.Load(), failed)
		}
		if failed {
			break
		}
	}

	// 3. The hole opens at a random moment of a slow run, from outside:
	// the run fails or (the hole came before its first or after its last call
	// to node 2) commits; either way exactly. The link heals at once: the
	// bytes held meanwhile (the failed run's late calls, its abort) reach the
	// node over the connection the next run uses again, and that run is exact.
	if !testing.Short() {
		p.SetDelay(10 * time.Millisecond)
		for i := 0; i < 10; i++ {
			m.Add()
		}
		window := mustRunOn(2, "timing run").Duration
		for i := 0; i < 2; i++ {
			delay := time.Duration(m.Rng.Int64N(int64(window)))
			blackHoleCycle(fmt.Sprintf("black hole %s into a run of about %s", delay, window.Round(time.Millisecond)), false,
				func() (time.Duration, func()) { return delay, func() { p.SetDrop(true) } })
		}
		p.SetDelay(0)
	}

	// 4. Every connection through the proxy is cut at a random moment of a
	// run: the run fails, naming node 2, or commits; the next converges.
	p.SetDelay(5 * time.Millisecond)
	for j := 0; j < 10; j++ {
		m.Add()
	}
	window := mustRunOn(2, "timing run before the resets").Duration
	failed := 0
	for i := 0; i < 5; i++ {
		for j := 5 + m.Rng.IntN(10); j > 0; j-- {
			m.Step()
		}
		m.Add()
		before := snapshotCommitted(t, e, pool)
		delay := time.Duration(m.Rng.Int64N(int64(window) * 3 / 2))
		rep, took, err := runWith(e, m.Rng.IntN(5) == 0, delay, p.Reset)
		name := fmt.Sprintf("reset %d, %s into the run", i, delay)
		if err != nil {
			failed++
			t.Logf("%s: failed after %s: %v", name, took.Round(time.Millisecond), err)
			checkFailedRun(t, e, pool, before, rep, err, name, via)
		} else {
			t.Logf("%s: committed (%s run, %d nodes) in %s", name, rep.Kind, rep.Nodes, took.Round(time.Millisecond))
			checkAgainstReference(t, pool, cfg, name+": the committed run")
		}
		m.Add()
		mustRunOn(2, name+": the next run")
	}
	t.Logf("%d of 5 runs failed by a reset", failed)
}

// testPKI is a throwaway CA writing PEM files.
type testPKI struct {
	t   testing.TB
	dir string
	key *ecdsa.PrivateKey
	crt *x509.Certificate
	ca  string // the CA certificate's file
}

var certSerial atomic.Int64

func newTestCA(t testing.TB, name string) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(certSerial.Add(1)), Subject: pkix.Name{CommonName: name + " CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	crt, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	p := &testPKI{t: t, dir: t.TempDir(), key: key, crt: crt}
	p.ca = p.write(name+"-ca.pem", "CERTIFICATE", der)
	return p
}

func (p *testPKI) write(name, typ string, der []byte) string {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// issue signs a certificate for name (valid for 127.0.0.1, ::1 and
// localhost) with the given usage and returns its certificate and key files.
func (p *testPKI) issue(name string, usage x509.ExtKeyUsage) (certFile, keyFile string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		p.t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(certSerial.Add(1)), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.crt, &key.PublicKey, p.key)
	if err != nil {
		p.t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		p.t.Fatal(err)
	}
	return p.write(name+".pem", "CERTIFICATE", der), p.write(name+"-key.pem", "EC PRIVATE KEY", kder)
}

// TestCluster_MutualTLS: nodes serving mutual TLS (no secret) and a master
// with a client certificate of the same CA give exact runs; a master whose
// client certificate another CA signed, or that does not trust the nodes'
// CA, cannot run: the run fails naming every node and the certificate
// problem, and commits nothing.
func TestCluster_MutualTLS(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	ca, rogue := newTestCA(t, "cluster"), newTestCA(t, "rogue")
	srvCert, srvKey := ca.issue("node", x509.ExtKeyUsageServerAuth)
	cliCert, cliKey := ca.issue("master", x509.ExtKeyUsageClientAuth)
	badCert, badKey := rogue.issue("intruder", x509.ExtKeyUsageClientAuth)
	sec := remote.Security{CertFile: srvCert, KeyFile: srvKey, CAFile: ca.ca}
	addrs := []string{
		serveNode(t, cluster.NewLocalNode(0, 0), sec),
		serveNode(t, cluster.NewLocalNode(0, 0), sec),
	}
	tlsConfig := func(cert, key, caFile string) config.Config {
		cfg := enginetest.Config(t, url, 0)
		cfg.Cluster.Nodes = addrs
		cfg.Cluster.TLSCert, cfg.Cluster.TLSKey, cfg.Cluster.TLSCA = cert, key, caFile
		cfg.Cluster.CallTimeout = 30 * time.Second
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := tlsConfig(cliCert, cliKey, ca.ca)
	e := NewEngine(cfg, pool, enginetest.Logger(t))
	defer e.Close()
	m := &enginetest.Mutator{T: t, Pool: pool, C: enginetest.NewCorpus(seed), Rng: mrand.New(mrand.NewPCG(seed, 29))}
	for i := 0; i < 30; i++ {
		m.Step()
	}
	for run := 0; run < 5; run++ {
		rep := mustRun(t, e, false)
		if rep.Nodes != 2 || rep.BytesToNodes == 0 {
			t.Fatalf("run %d over mutual TLS: %s on %d nodes, %d bytes to nodes", run, rep.Kind, rep.Nodes, rep.BytesToNodes)
		}
		checkAgainstReference(t, pool, cfg, fmt.Sprintf("run %d over mutual TLS", run))
		for i := m.Rng.IntN(8); i >= 0; i-- {
			m.Step()
		}
		m.Add()
	}

	for _, c := range []struct {
		name           string
		cert, key, ca  string
		wantAnyOfWords []string
	}{
		{"a client certificate of another CA", badCert, badKey, ca.ca, []string{"certificate", "tls"}},
		{"a master that does not trust the nodes' CA", cliCert, cliKey, rogue.ca, []string{"certificate", "x509"}},
	} {
		bad := NewEngine(tlsConfig(c.cert, c.key, c.ca), pool, enginetest.Logger(t))
		before := snapshotCommitted(t, e, pool)
		start := time.Now()
		rep, err := bad.Run(context.Background(), false)
		took := time.Since(start)
		bad.Close()
		t.Logf("%s: failed after %s: %v", c.name, took.Round(time.Millisecond), err)
		checkFailedRun(t, e, pool, before, rep, err, c.name, addrs...)
		msg := strings.ToLower(err.Error())
		if !strings.Contains(msg, "no cluster node answered") {
			t.Fatalf("%s: %v, want no cluster node answered", c.name, err)
		}
		found := false
		for _, w := range c.wantAnyOfWords {
			found = found || strings.Contains(msg, w)
		}
		if !found {
			t.Fatalf("%s: the error mentions none of %v: %v", c.name, c.wantAnyOfWords, err)
		}
		if took > pingTimeout*2+5*time.Second {
			t.Fatalf("%s: refused only after %s", c.name, took)
		}
	}
	// The rightful master goes on, exactly.
	if rep := mustRun(t, e, false); rep.Nodes != 2 || rep.Kind != "incremental" {
		t.Fatalf("after the refused masters: %s run on %d nodes", rep.Kind, rep.Nodes)
	}
	checkAgainstReference(t, pool, cfg, "after the refused masters")
}
