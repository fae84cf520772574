package main

import (
	"context"
	"fmt"
	"net"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/cli"
)

func init() { register(newNodeCmd) }

// newNodeCmd is `plagd node`: a worker process holding one slice of the
// inverted index, driven by the master over gRPC (cluster/remote). It needs
// no database. It starts with no slice: the master installs one, of the range
// it assigns, before the node's first run.
func newNodeCmd(g *globals) *cobra.Command {
	var (
		listen, secretFile string
		tlsCert, tlsKey    string
		tlsCA              string
	)
	cmd := &cobra.Command{
		Use:   "node --listen ADDR [--secret-file F] [--tls-cert F --tls-key F --tls-ca F]",
		Short: "Run a cluster node serving one slice of the index over gRPC",
		Long: `Run a cluster node: a process that chunks documents and holds one slice of
the inverted index for the master, over gRPC. The master (cluster.nodes in its
configuration) assigns the node its range of the chunk-ID space and ships it
its slice; a node that restarts empty is reloaded by the master.

Every call must be authenticated, by mutual TLS (--tls-cert, --tls-key and
--tls-ca: the master's client certificate must be signed by that CA; TLS 1.3),
by a shared secret (--secret-file: at least 16 bytes, the master sends the
same), or both. The flags default to the cluster section of the configuration
file (cluster.secret_file, cluster.tls_cert, cluster.tls_key, cluster.tls_ca),
so master and nodes can share one file. Without TLS the secret and the data
travel in clear: use the secret alone only on a trusted private network. A
node with neither refuses to start (cluster.insecure allows it on a loopback
address only, for tests).

SIGTERM or SIGINT stops the node after the calls in progress.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cli.UsageError{Msg: fmt.Sprintf("plagd node takes no arguments, got %q", args)}
			}
			if listen == "" {
				return cli.UsageError{Msg: "plagd node needs --listen ADDR (e.g. 0.0.0.0:7070)"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.nodeConfig()
			if err != nil {
				return err
			}
			log := cli.Logger(cfg).With().Str("component", "node").Logger()
			cc := cfg.Cluster
			f := cmd.Flags()
			for _, o := range []struct {
				flag string
				dst  *string
				val  string
			}{{"secret-file", &cc.SecretFile, secretFile}, {"tls-cert", &cc.TLSCert, tlsCert},
				{"tls-key", &cc.TLSKey, tlsKey}, {"tls-ca", &cc.TLSCA, tlsCA}} {
				if f.Changed(o.flag) {
					*o.dst = o.val
				}
			}
			sec, err := nodeSecurity(cc, listen)
			if err != nil {
				return err
			}
			node := cluster.NewLocalNode(0, 0)
			srv, err := remote.NewServer(node, sec, log)
			if err != nil {
				return err
			}
			return serveNode(cmd.Context(), srv, sec, listen, log)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "address to listen on (host:port)")
	f.StringVar(&secretFile, "secret-file", "", "file holding the shared secret of the cluster (default: cluster.secret_file)")
	f.StringVar(&tlsCert, "tls-cert", "", "node certificate (PEM) for mutual TLS (default: cluster.tls_cert)")
	f.StringVar(&tlsKey, "tls-key", "", "key of --tls-cert (PEM) (default: cluster.tls_key)")
	f.StringVar(&tlsCA, "tls-ca", "", "CA certificate (PEM) that signed the master's and nodes' certificates (default: cluster.tls_ca)")
	return cmd
}

// loopback reports whether a listen address is on a loopback interface.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// nodeConfig is globals.config without the database, which a node does not use.
func (g *globals) nodeConfig() (config.Config, error) {
	cfg, err := config.Load(g.ConfigPath)
	if g.LogLevel != "" {
		cfg.Log.Level = g.LogLevel
	}
	if g.LogFormat != "" {
		cfg.Log.Format = g.LogFormat
	}
	return cfg, err
}

// nodeSecurity is the node's authentication from the cluster section (flags
// applied): mutual TLS, a shared secret or both; none only on a loopback
// address (cluster.insecure, for tests).
func nodeSecurity(cc config.Cluster, listen string) (remote.Security, error) {
	if err := cc.Validate(); err != nil {
		return remote.Security{}, err
	}
	sec, err := remote.LoadSecurity(cc.TLSCert, cc.TLSKey, cc.TLSCA, cc.SecretFile, cc.Insecure)
	if err != nil {
		return sec, err
	}
	if sec.Insecure && (cc.SecretFile != "" || cc.TLSCert != "") {
		sec.Insecure = false // security is configured: use it
	}
	if sec.Insecure && !loopback(listen) {
		return sec, fmt.Errorf("cluster.insecure is set, but --listen %s is not a loopback address: an unauthenticated node may only listen on 127.0.0.1 or ::1", listen)
	}
	return sec, nil
}

// serveNode serves srv on listen until the server fails or ctx ends (SIGTERM,
// SIGINT), then lets the calls in progress finish.
func serveNode(ctx context.Context, srv *remote.Server, sec remote.Security, listen string, log zerolog.Logger) error {
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	mode := "shared secret"
	switch {
	case sec.CertFile != "" && len(sec.Secret) > 0:
		mode = "mutual TLS and shared secret"
	case sec.CertFile != "":
		mode = "mutual TLS"
	case sec.Insecure:
		mode = "none (insecure, loopback only)"
	}
	log.Info().Str("listen", l.Addr().String()).Str("auth", mode).Msg("node serving")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return fmt.Errorf("node server: %w", err)
	case <-ctx.Done():
		log.Info().Msg("stopping: waiting for calls in progress")
		srv.GracefulStop()
		<-done
		log.Info().Msg("node stopped")
		return nil
	}
}
