package main

import (
	"context"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/daemon"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/store"
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
			cfg, db, err := g.open(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			if listen != "" {
				cfg.HTTP.Listen = listen
			}
			log := cli.Logger(cfg)
			d := daemon.NewDaemon(cfg, db.Pool, log)
			ui, err := web.New(web.Options{Config: cfg, DB: db, Engine: d.Engine(), Runner: d, Health: d.Health(), Log: log})
			if err != nil {
				return err
			}
			d.SetUI(ui.Handler())
			warnNoUsers(cmd.Context(), db, log)
			return d.Serve(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "HTTP address (overrides http.listen)")
	return cmd
}

// warnNoUsers tells the operator how to get in when nobody can sign in yet.
func warnNoUsers(ctx context.Context, db *store.DB, log zerolog.Logger) {
	users, err := auth.NewStore(db.Pool).Users(ctx)
	if err != nil {
		return
	}
	for _, u := range users {
		if !u.Disabled {
			return
		}
	}
	log.Warn().Msg("no user accounts yet: nobody can sign in; create one with `plagd user add NAME --role admin`")
}
