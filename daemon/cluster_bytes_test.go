package daemon

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/synth"
)

// TestCluster_BytesPerRun measures the bytes shipped between the master and
// 2 remote nodes by an incremental run of 100 modified documents, on archives
// of several sizes (PLAGD_MEASURE_BYTES=2000,20000), to show that they follow
// the changed documents, not the archive. Skipped unless asked:
//
//	PLAGD_MEASURE_BYTES=2000,20000 go test ./daemon -run TestCluster_BytesPerRun -v -timeout 60m
func TestCluster_BytesPerRun(t *testing.T) {
	sizes := os.Getenv("PLAGD_MEASURE_BYTES")
	if sizes == "" {
		t.Skip("a measurement: set PLAGD_MEASURE_BYTES=2000,20000")
	}
	const changed = 100
	opt := synth.Defaults()
	opt.MeanWords = 1000
	g := synth.New(opt)
	var table []string
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		url := pgtest.NewDB(t)
		pool := pgtest.Pool(t, url)
		ctx := context.Background()
		rows := make([][]any, 0, n)
		if err := g.Each(ctx, 0, n, 0, func(i int, d synth.Doc) error {
			rows = append(rows, []any{d.ExternalID, d.Title, d.Text})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.CopyFrom(ctx, pgx.Identifier{"documents"}, []string{"external_id", "title", "text"}, pgx.CopyFromRows(rows)); err != nil {
			t.Fatal(err)
		}
		rows = nil
		addrs := []string{startNodeServer(t, "127.0.0.1:0").addr, startNodeServer(t, "127.0.0.1:0").addr}
		cfg := DefaultConfig()
		cfg.DatabaseURL = url
		cfg.DataDir = t.TempDir()
		cfg.Cluster.Nodes = addrs
		cfg.Cluster.SecretFile = secretFile(t)
		e := NewEngine(cfg, pool, testLogger(t))
		start := time.Now()
		full := mustRun(t, e, false)
		t.Logf("%d documents: full run in %s, %d postings, %d bytes to nodes, %d from nodes",
			n, time.Since(start).Round(time.Millisecond), full.Postings, full.BytesToNodes, full.BytesFromNodes)
		for round := 0; round < 2; round++ {
			// Modify changed documents: each gets the text of a new synthetic document.
			for i := 0; i < changed; i++ {
				d := g.Doc(n + round*changed + i)
				pgtest.Exec(t, pool, `update documents set text = $2 where id = (select id from documents order by id offset $1 limit 1)`,
					(i*7919+round*31)%n, d.Text)
			}
			rep := mustRun(t, e, false)
			if rep.Kind != "incremental" || rep.Changed != changed {
				t.Fatalf("%s run of %d changes, want incremental of %d", rep.Kind, rep.Changed, changed)
			}
			line := fmt.Sprintf("archive %6d docs, %8d postings | run of %d changed: to nodes %9d B (%6d B/doc), from nodes %9d B (%6d B/doc), %s",
				n, rep.Postings, rep.Changed, rep.BytesToNodes, rep.BytesToNodes/int64(rep.Changed),
				rep.BytesFromNodes, rep.BytesFromNodes/int64(rep.Changed), rep.Duration.Round(time.Millisecond))
			t.Log(line)
			table = append(table, line)
		}
		e.Close()
	}
	t.Log("summary:\n" + strings.Join(table, "\n"))
}
