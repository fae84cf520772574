package main

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/web"
)

func init() { register(newServeCmd) }

// newServeCmd is `plagd serve`: the master daemon with its web pages.
func newServeCmd(g *globals) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the master daemon: scheduled and prompt runs, web interface, JSON API, /healthz, /readyz, /metrics",
		Long: `Holds the master lock (one master per database), runs on the cron schedule
and shortly after changes are noticed (LISTEN/NOTIFY, debounced), and serves
HTTP. SIGTERM or Ctrl-C aborts a run in progress cleanly: nothing of it is
committed and its changes stay pending for the next run.

The web interface and the JSON API (/api/v1, described at /api/openapi.json)
need an account: create the first one with
  plagd user add NAME --role admin`,
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
			log := cli.Logger(cfg)
			d := daemon.NewDaemon(cfg, pool, log)
			ui, err := web.New(web.Options{Config: cfg, Pool: pool, Engine: d.Engine(), Runner: d, Health: d.Health(), Log: log})
			if err != nil {
				return err
			}
			d.SetUI(ui.Handler())
			warnNoUsers(cmd.Context(), pool, log)
			return d.Serve(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "HTTP address (overrides http.listen)")
	return cmd
}

// warnNoUsers tells the operator how to get in when nobody can sign in yet.
func warnNoUsers(ctx context.Context, pool *pgxpool.Pool, log zerolog.Logger) {
	var n int
	if err := pool.QueryRow(ctx, `select count(*) from users where not disabled`).Scan(&n); err == nil && n == 0 {
		log.Warn().Msg("no user accounts yet: nobody can sign in; create one with `plagd user add NAME --role admin`")
	}
}
