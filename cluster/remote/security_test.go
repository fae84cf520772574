package remote

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/nodepb"
	"github.com/plagd/plagd/invindex"
)

// spyNode records whether any call reached the node.
type spyNode struct {
	cluster.Node
	called bool
}

func (s *spyNode) Begin(ctx context.Context, spec cluster.RunSpec, removed []invindex.DocID) error {
	s.called = true
	return s.Node.Begin(ctx, spec, removed)
}

func (s *spyNode) Abort(ctx context.Context) error {
	s.called = true
	return s.Node.Abort(ctx)
}

func (s *spyNode) Query(ctx context.Context, q cluster.Query) ([]invindex.Pair, error) {
	s.called = true
	return s.Node.(cluster.Querier).Query(ctx, q)
}

// callAll calls every method of the service with rpc and returns the error
// of each by method name. Streams are driven to their end.
func callAll(rpc nodepb.NodeClient) map[string]error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	drain := func(recv func() error) error {
		for {
			if err := recv(); err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	}
	out := map[string]error{}
	_, out["Range"] = rpc.Range(ctx, &nodepb.Empty{})
	_, out["Begin"] = rpc.Begin(ctx, &nodepb.BeginRequest{Run: 1, Full: true, Params: &nodepb.Params{WindowWords: 3, ChunkBits: 20}})
	out["Chunk"] = func() error {
		s, err := rpc.Chunk(ctx)
		if err != nil {
			return err
		}
		s.Send(&nodepb.TextPart{Doc: 1, Text: []byte("a b c d")})
		s.CloseSend()
		return drain(func() error { _, err := s.Recv(); return err })
	}()
	out["Deliver"] = func() error {
		s, err := rpc.Deliver(ctx)
		if err != nil {
			return err
		}
		s.Send(&nodepb.DeliverPart{Index: true})
		_, err = s.CloseAndRecv()
		return err
	}()
	_, out["Build"] = rpc.Build(ctx, &nodepb.Empty{})
	out["Count"] = func() error {
		s, err := rpc.Count(ctx, &nodepb.CountRequest{})
		if err != nil {
			return err
		}
		return drain(func() error { _, err := s.Recv(); return err })
	}()
	_, out["Commit"] = rpc.Commit(ctx, &nodepb.CommitRequest{Gen: 1})
	_, out["Abort"] = rpc.Abort(ctx, &nodepb.Empty{})
	out["Snapshot"] = func() error {
		s, err := rpc.Snapshot(ctx, &nodepb.Empty{})
		if err != nil {
			return err
		}
		return drain(func() error { _, err := s.Recv(); return err })
	}()
	out["Query"] = func() error {
		s, err := rpc.Query(ctx, &nodepb.QueryRequest{})
		if err != nil {
			return err
		}
		return drain(func() error { _, err := s.Recv(); return err })
	}()
	out["Related"] = func() error {
		s, err := rpc.Related(ctx)
		if err != nil {
			return err
		}
		s.Send(&nodepb.RelatedPart{Job: &nodepb.RelatedJob{K: 1, Method: "exact"}})
		s.CloseSend()
		return drain(func() error { _, err := s.Recv(); return err })
	}()
	out["RoutingSync"] = func() error {
		s, err := rpc.RoutingSync(ctx)
		if err != nil {
			return err
		}
		s.Send(&nodepb.RoutingPart{Header: &nodepb.RoutingHeader{Full: true, K: 1, M: 1}})
		_, err = s.CloseAndRecv()
		return err
	}()
	_, out["RoutingQuery"] = rpc.RoutingQuery(ctx, &nodepb.RoutingQueryRequest{})
	out["Install"] = func() error {
		s, err := rpc.Install(ctx)
		if err != nil {
			return err
		}
		s.Send(&nodepb.Blob{Gen: 1})
		_, err = s.CloseAndRecv()
		return err
	}()
	return out
}

func serviceMethods() []string {
	var names []string
	for _, m := range nodepb.Node_ServiceDesc.Methods {
		names = append(names, m.MethodName)
	}
	for _, s := range nodepb.Node_ServiceDesc.Streams {
		names = append(names, s.StreamName)
	}
	sort.Strings(names)
	return names
}

// TestSecret_WrongRefusedEverywhere: every method of the service refuses a
// wrong or missing secret with Unauthenticated, and the node is never called.
func TestSecret_WrongRefusedEverywhere(t *testing.T) {
	spy := &spyNode{Node: cluster.NewLocalNode(0, 1<<20)}
	addr, _ := startServer(t, spy, Security{Secret: testSecret})
	for _, tc := range []struct {
		name string
		sec  Security
	}{{"wrong", Security{Secret: []byte("not-the-shared-secret-at-all")}}, {"missing", Security{}}, {"prefix", Security{Secret: testSecret[:10]}}} {
		opts, err := tc.sec.dialOptions()
		if err != nil {
			t.Fatal(err)
		}
		conn, err := grpc.NewClient(addr, opts...)
		if err != nil {
			t.Fatal(err)
		}
		errs := callAll(nodepb.NewNodeClient(conn))
		conn.Close()
		var called []string
		for name := range errs {
			called = append(called, name)
		}
		sort.Strings(called)
		if strings.Join(called, ",") != strings.Join(serviceMethods(), ",") {
			t.Fatalf("the table calls %v, the service has %v", called, serviceMethods())
		}
		for name, err := range errs {
			if status.Code(err) != codes.Unauthenticated {
				t.Errorf("%s secret, %s: %v, want Unauthenticated", tc.name, name, err)
			}
		}
	}
	if spy.called {
		t.Fatal("an unauthenticated call reached the node")
	}
	if _, err := Dial(context.Background(), addr, Security{Secret: []byte("wrong-secret-wrong-secret")}, Options{}); status.Code(err) != codes.Unauthenticated ||
		!strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("Dial with a wrong secret: %v", err)
	}
	// The right secret passes every method (they fail or not on their own merits).
	c := dial(t, addr, Security{Secret: testSecret}, Options{})
	for name, err := range callAll(c.rpc) {
		if status.Code(err) == codes.Unauthenticated {
			t.Errorf("right secret, %s: %v", name, err)
		}
	}
}

func TestServerRefusesNoSecurity(t *testing.T) {
	if _, err := NewServer(cluster.NewLocalNode(0, 1<<20), Security{}, zeroLog()); !errors.Is(err, ErrNoSecurity) {
		t.Fatalf("NewServer without security: %v, want ErrNoSecurity", err)
	}
}

func TestReadSecret(t *testing.T) {
	dir := t.TempDir()
	short, good := filepath.Join(dir, "short"), filepath.Join(dir, "good")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	os.WriteFile(good, []byte("0123456789abcdef0123\n"), 0o600)
	if _, err := ReadSecret(short); err == nil {
		t.Fatal("short secret accepted")
	}
	if s, err := ReadSecret(good); err != nil || string(s) != "0123456789abcdef0123" {
		t.Fatalf("ReadSecret: %q, %v", s, err)
	}
}

// pki writes PEM files of a throwaway CA and certificates it signs.
type pki struct {
	t   *testing.T
	dir string
	key *ecdsa.PrivateKey
	crt *x509.Certificate
}

func newCA(t *testing.T, name string) *pki {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	crt, _ := x509.ParseCertificate(der)
	p := &pki{t: t, dir: t.TempDir(), key: key, crt: crt}
	p.write(name+"-ca.pem", "CERTIFICATE", der)
	return p
}

func (p *pki) write(name, typ string, der []byte) string {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		p.t.Fatal(err)
	}
	return path
}

func (p *pki) caFile() string { return filepath.Join(p.dir, p.crt.Subject.CommonName+"-ca.pem") }

// issue returns cert and key files for name, valid for 127.0.0.1.
func (p *pki) issue(name string, usage x509.ExtKeyUsage) (certFile, keyFile string) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.crt, &key.PublicKey, p.key)
	if err != nil {
		p.t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	return p.write(name+".pem", "CERTIFICATE", der), p.write(name+"-key.pem", "EC PRIVATE KEY", kder)
}

// TestMutualTLS: a client with a certificate of the cluster's CA gets in; one
// signed by another CA, or without a certificate, is refused before any call
// reaches the node.
func TestMutualTLS(t *testing.T) {
	ca, rogue := newCA(t, "cluster"), newCA(t, "rogue")
	srvCert, srvKey := ca.issue("node", x509.ExtKeyUsageServerAuth)
	cliCert, cliKey := ca.issue("master", x509.ExtKeyUsageClientAuth)
	badCert, badKey := rogue.issue("intruder", x509.ExtKeyUsageClientAuth)

	spy := &spyNode{Node: cluster.NewLocalNode(0, 1<<20)}
	addr, _ := startServer(t, spy, Security{CertFile: srvCert, KeyFile: srvKey, CAFile: ca.caFile()})
	opts := Options{DialTimeout: 3 * time.Second}

	good := dial(t, addr, Security{CertFile: cliCert, KeyFile: cliKey, CAFile: ca.caFile()}, opts)
	if err := good.Abort(context.Background()); err != nil || !spy.called {
		t.Fatalf("mTLS client with a CA-signed certificate: %v", err)
	}
	spy.called = false

	// Signed by another CA (which the client trusts to reach the server's
	// certificate check at all: it trusts both).
	both := filepath.Join(t.TempDir(), "both.pem")
	a, _ := os.ReadFile(ca.caFile())
	b, _ := os.ReadFile(rogue.caFile())
	os.WriteFile(both, append(a, b...), 0o600)
	if c, err := Dial(context.Background(), addr, Security{CertFile: badCert, KeyFile: badKey, CAFile: both}, opts); err == nil {
		c.Close()
		t.Fatal("a client certificate of another CA was accepted")
	} else if t.Log(err); !strings.Contains(err.Error(), addr) {
		t.Fatalf("error does not name the node: %v", err)
	}
	// No client certificate at all: plain TLS against the right CA.
	conn, err := grpc.NewClient(addr, mustTLSNoCert(t, ca.caFile()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for name, err := range callAll(nodepb.NewNodeClient(conn)) {
		if err == nil {
			t.Errorf("%s without a client certificate succeeded", name)
		}
	}
	if spy.called {
		t.Fatal("a call without a valid client certificate reached the node")
	}
	if _, err := NewServer(spy, Security{CertFile: srvCert}, zeroLog()); err == nil {
		t.Fatal("incomplete TLS configuration accepted")
	}
}

func zeroLog() zerolog.Logger { return zerolog.Nop() }

// mustTLSNoCert is TLS trusting caFile, with no client certificate.
func mustTLSNoCert(t *testing.T, caFile string) grpc.DialOption {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13}))
}
