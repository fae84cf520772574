package remote

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Security is how the master and the nodes authenticate each other. A node
// endpoint ships the index and accepts documents, so it must never be open.
// Two modes, usable together:
//
//   - Mutual TLS (CertFile, KeyFile, CAFile): the connection is TLS 1.3; the
//     server requires a client certificate signed by CAFile, and the client
//     verifies the server's certificate against the same CA (the server
//     certificate must name the host the client dials, or ServerName). The
//     traffic is encrypted. Recommended between hosts.
//   - Shared secret (Secret, e.g. read by ReadSecret from a file of mode
//     0600): every call carries "authorization: Bearer <secret>" and the
//     server compares it in constant time (unary and stream interceptors).
//     Without TLS the secret and the data cross the network in clear: use it
//     alone only on a trusted private network, or combine it with mTLS.
//
// A server with neither refuses to start unless Insecure is set, which is for
// tests and loopback only.
type Security struct {
	CertFile, KeyFile, CAFile string
	ServerName                string // client side: the name in the server certificate, if not the dialed host
	Secret                    []byte
	Insecure                  bool
}

// ReadSecret reads a shared secret from a file, trimming a final newline. It
// refuses an empty or short secret.
func ReadSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read node secret: %w", err)
	}
	b = []byte(strings.TrimRight(string(b), "\r\n"))
	if len(b) < 16 {
		return nil, fmt.Errorf("node secret in %s is %d bytes; use at least 16 random bytes (e.g. openssl rand -hex 32)", path, len(b))
	}
	return b, nil
}

func (s Security) tls() bool { return s.CertFile != "" || s.KeyFile != "" || s.CAFile != "" }

// loadTLS loads the certificate pair and the CA pool.
func (s Security) loadTLS() (tls.Certificate, *x509.CertPool, error) {
	if s.CertFile == "" || s.KeyFile == "" || s.CAFile == "" {
		return tls.Certificate{}, nil, errors.New("mutual TLS needs a certificate, its key and the CA certificate (--tls-cert, --tls-key, --tls-ca)")
	}
	cert, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("load TLS certificate: %w", err)
	}
	ca, err := os.ReadFile(s.CAFile)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("read TLS CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return tls.Certificate{}, nil, fmt.Errorf("no PEM certificate in %s", s.CAFile)
	}
	return cert, pool, nil
}

// ServerTLSConfig is the server side of mutual TLS.
func (s Security) ServerTLSConfig() (*tls.Config, error) {
	cert, pool, err := s.loadTLS()
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS13,
	}, nil
}

// ClientTLSConfig is the client side of mutual TLS.
func (s Security) ClientTLSConfig() (*tls.Config, error) {
	cert, pool, err := s.loadTLS()
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		RootCAs:      pool,
		ServerName:   s.ServerName,
		MinVersion:   tls.VersionTLS13,
	}, nil
}

// ErrNoSecurity is returned for a server with neither mTLS nor a secret.
var ErrNoSecurity = errors.New("node server has neither mutual TLS nor a shared secret: refusing to open an unauthenticated port (give --secret-file or --tls-cert/--tls-key/--tls-ca)")

func (s Security) serverOptions() ([]grpc.ServerOption, error) {
	var opts []grpc.ServerOption
	if s.tls() {
		c, err := s.ServerTLSConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(c)))
	} else if len(s.Secret) == 0 && !s.Insecure {
		return nil, ErrNoSecurity
	}
	if len(s.Secret) > 0 {
		check := secretChecker(s.Secret)
		opts = append(opts,
			grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				if err := check(ctx); err != nil {
					return nil, err
				}
				return h(ctx, req)
			}),
			grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
				if err := check(ss.Context()); err != nil {
					return err
				}
				return h(srv, ss)
			}))
	}
	return opts, nil
}

// secretChecker compares the call's bearer token with secret in constant
// time (hashing both first, so that the length does not leak either).
func secretChecker(secret []byte) func(context.Context) error {
	want := sha256.Sum256(secret)
	return func(ctx context.Context) error {
		md, _ := metadata.FromIncomingContext(ctx)
		var got [sha256.Size]byte
		ok := 0
		if v := md.Get("authorization"); len(v) == 1 && strings.HasPrefix(v[0], "Bearer ") {
			got, ok = sha256.Sum256([]byte(strings.TrimPrefix(v[0], "Bearer "))), 1
		}
		if subtle.ConstantTimeCompare(got[:], want[:])&ok != 1 {
			return status.Error(codes.Unauthenticated, "missing or wrong node secret")
		}
		return nil
	}
}

// bearer sends the secret with every call.
type bearer struct {
	secret string
	tls    bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.secret}, nil
}

func (b bearer) RequireTransportSecurity() bool { return b.tls }

func (s Security) dialOptions() ([]grpc.DialOption, error) {
	var opts []grpc.DialOption
	if s.tls() {
		c, err := s.ClientTLSConfig()
		if err != nil {
			return nil, err
		}
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(c)))
	} else {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if len(s.Secret) > 0 {
		opts = append(opts, grpc.WithPerRPCCredentials(bearer{secret: string(s.Secret), tls: s.tls()}))
	}
	return opts, nil
}

// LoadSecurity is the security of a cluster configured with these files:
// mutual TLS from certFile, keyFile and caFile (all three or none, checked
// by the configuration), and the shared secret read from secretFile when
// one is named.
func LoadSecurity(certFile, keyFile, caFile, secretFile string, insecure bool) (Security, error) {
	sec := Security{CertFile: certFile, KeyFile: keyFile, CAFile: caFile, Insecure: insecure}
	if secretFile != "" {
		b, err := ReadSecret(secretFile)
		if err != nil {
			return sec, fmt.Errorf("cluster.secret_file: %w", err)
		}
		sec.Secret = b
	}
	return sec, nil
}
