package daemon

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/synth"
)

func TestZZProfRelated(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	ctx := context.Background()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := DefaultConfig()
	cfg.DatabaseURL = url
	cfg.DataDir = t.TempDir()
	o := synth.Defaults()
	o.MeanWords = 1000
	g := synth.New(o)
	n := 10000
	rows := make([][]any, 0, n+500)
	for i := range n + 500 {
		d := g.Doc(i)
		rows = append(rows, []any{d.ExternalID, d.Text})
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"documents"}, []string{"external_id", "text"}, pgx.CopyFromRows(rows[:n])); err != nil {
		t.Fatal(err)
	}
	e := NewEngine(cfg, pool, testLogger(t))
	rep := mustRun(t, e, false)
	t.Log("full", rep.Phases)
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"documents"}, []string{"external_id", "text"}, pgx.CopyFromRows(rows[n:])); err != nil {
		t.Fatal(err)
	}
	pool.Exec(ctx, `update documents set deleted_at = now() where id % 100 = 7`)
	f, _ := os.Create("/tmp/zzrel.prof")
	pprof.StartCPUProfile(f)
	t0 := time.Now()
	rep = mustRun(t, e, false)
	pprof.StopCPUProfile()
	var nrel int
	pool.QueryRow(ctx, `select count(*) from related`).Scan(&nrel)
	t.Log("incremental", time.Since(t0), rep.Phases, nrel)
}
