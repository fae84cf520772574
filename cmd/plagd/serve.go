package main

import (
	"github.com/spf13/cobra"

	"github.com/plagd/plagd/daemon"
)

func init() { register(newServeCmd) }

// newServeCmd is `plagd serve`: the master daemon with its web pages.
func newServeCmd(g *globals) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the master daemon: scheduled and prompt runs, web pages, /healthz, /readyz, /metrics",
		Long: `Holds the master lock (one master per database), runs on the cron schedule
and shortly after changes are noticed (LISTEN/NOTIFY, debounced), and serves
HTTP. SIGTERM or Ctrl-C aborts a run in progress cleanly: nothing of it is
committed and its changes stay pending for the next run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, pool, err := g.open(cmd.Context())
			if err != nil {
				return err
			}
			defer pool.Close()
			if listen != "" {
				cfg.HTTP.Listen = listen
			}
			return daemon.NewDaemon(cfg, pool, logger(cfg)).Serve(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "HTTP address (overrides http.listen)")
	return cmd
}
