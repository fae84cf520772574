package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/invindex"
)

func init() { register(newNodeCmd) }

// newNodeCmd is `plagd node`: a worker process holding one slice of the
// inverted index, driven by the master over gRPC (cluster/remote). It needs
// no database.
func newNodeCmd(g *globals) *cobra.Command {
	var (
		listen, secretFile, part string
		sec                      remote.Security
	)
	cmd := &cobra.Command{
		Use:   "node --listen ADDR (--secret-file F | --tls-cert F --tls-key F --tls-ca F) [--part I/K]",
		Short: "Run a cluster node serving one slice of the index over gRPC",
		Long: `Run a cluster node: a process that chunks documents and holds one slice of
the inverted index for the master, over gRPC.

Every call must be authenticated, by mutual TLS (--tls-cert, --tls-key and
--tls-ca: the master's client certificate must be signed by that CA; TLS 1.3),
by a shared secret (--secret-file: at least 16 bytes, the master sends the
same), or both. Without TLS the secret and the data travel in clear: use the
secret alone only on a trusted private network. A node with neither refuses
to start.

--part I/K makes the node own the I-th of K equal ranges of the chunk-ID space
(chunk_bits from the configuration), matching the master's list of K nodes.
SIGTERM or SIGINT stops the node after the calls in progress.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Sprintf("plagd node takes no arguments, got %q", args)}
			}
			if listen == "" {
				return usageError{"plagd node needs --listen ADDR (e.g. 0.0.0.0:7070)"}
			}
			if _, _, err := parsePart(part); err != nil {
				return usageError{err.Error()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.nodeConfig()
			if err != nil {
				return err
			}
			log := logger(cfg).With().Str("component", "node").Logger()
			if secretFile != "" {
				if sec.Secret, err = remote.ReadSecret(secretFile); err != nil {
					return err
				}
			}
			i, k, _ := parsePart(part)
			p := cfg.Params()
			bounds := invindex.SplitRange(p.SpaceSize(), k)
			node := cluster.NewLocalNode(bounds[i-1], bounds[i])
			srv, err := remote.NewServer(node, sec, log)
			if err != nil {
				return err
			}
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
			}
			log.Info().Str("listen", l.Addr().String()).Str("auth", mode).Uint64("lo", bounds[i-1]).Uint64("hi", bounds[i]).
				Str("part", part).Msg("node serving")
			done := make(chan error, 1)
			go func() { done <- srv.Serve(l) }()
			select {
			case err := <-done:
				return fmt.Errorf("node server: %w", err)
			case <-cmd.Context().Done():
				log.Info().Msg("stopping: waiting for calls in progress")
				srv.GracefulStop()
				<-done
				log.Info().Msg("node stopped")
				return nil
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "address to listen on (host:port)")
	f.StringVar(&secretFile, "secret-file", "", "file holding the shared secret of the cluster")
	f.StringVar(&sec.CertFile, "tls-cert", "", "node certificate (PEM) for mutual TLS")
	f.StringVar(&sec.KeyFile, "tls-key", "", "key of --tls-cert (PEM)")
	f.StringVar(&sec.CAFile, "tls-ca", "", "CA certificate (PEM) that signed the master's and nodes' certificates")
	f.StringVar(&part, "part", "1/1", "the part of the chunk-ID space this node owns: I/K")
	return cmd
}

// parsePart parses "I/K" with 1 <= I <= K.
func parsePart(s string) (i, k int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	k, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || k < 1 || i < 1 || i > k {
		return 0, 0, fmt.Errorf("--part must be I/K with 1 <= I <= K, got %q", s)
	}
	return i, k, nil
}

// nodeConfig is globals.config without the database, which a node does not use.
func (g *globals) nodeConfig() (daemon.Config, error) {
	cfg, err := daemon.LoadConfig(g.configPath)
	if g.logLevel != "" {
		cfg.Log.Level = g.logLevel
	}
	if g.logFormat != "" {
		cfg.Log.Format = g.logFormat
	}
	return cfg, err
}
