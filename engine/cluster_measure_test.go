package engine

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/synth"
)

// TestCluster_Measure measures runs on `plagd node` processes: the time of a
// full run and of incremental runs, and the bytes shipped between the master
// and the nodes, for archives of several sizes and several node counts. It
// shows that an incremental run's bytes follow the changed documents, not
// the archive. Skipped unless asked:
//
//	PLAGD_MEASURE_DOCS=10000,100000 PLAGD_MEASURE_NODES=0,1,2,4 PLAGD_MEASURE_CHANGED=1000 \
//	  go test ./daemon -run TestCluster_Measure -v -timeout 120m
//
// Node count 0 is the single-process engine (engine.nodes = 2 in-process
// nodes on this 2-core machine), the baseline. For each node count the
// archive gets a full run, then two incremental runs of CHANGED modified
// documents each (every changed document gets the text of a new synthetic
// document). Documents are synth texts of 1,000 words on average.
func TestCluster_Measure(t *testing.T) {
	sizes := os.Getenv("PLAGD_MEASURE_DOCS")
	if sizes == "" {
		t.Skip("a measurement: set PLAGD_MEASURE_DOCS=10000,100000 (and PLAGD_MEASURE_NODES, PLAGD_MEASURE_CHANGED)")
	}
	nodeCounts := intList(t, envOr("PLAGD_MEASURE_NODES", "0,2"))
	changed := intList(t, envOr("PLAGD_MEASURE_CHANGED", "1000"))[0]
	opt := synth.Defaults()
	opt.MeanWords = 1000
	g := synth.New(opt)
	secret := secretFile(t)
	var table []string
	next := 0 // synthetic documents used so far as new texts
	for _, n := range intList(t, sizes) {
		url, pool := synthArchive(t, g, n)
		next = n
		for _, k := range nodeCounts {
			cfg := config.Default()
			cfg.DatabaseURL, cfg.DataDir = url, t.TempDir()
			cfg.Engine.Nodes = 2
			var procs []*nodeProc
			for range k {
				p := startNodeProc(t, "127.0.0.1:0", secret)
				procs = append(procs, p)
				cfg.Cluster.Nodes = append(cfg.Cluster.Nodes, p.addr)
			}
			cfg.Cluster.SecretFile = secret
			e := NewEngine(cfg, pool, enginetest.Logger(t))
			full := mustRun(t, e, true)
			line := func(what string, rep RunReport) string {
				per := int64(0)
				if rep.Changed > 0 && rep.Kind == "incremental" {
					per = (rep.BytesToNodes + rep.BytesFromNodes) / int64(rep.Changed)
				}
				return fmt.Sprintf("%7d docs %10d postings | %d node processes | %-17s %8s | to nodes %11d B, from nodes %11d B, %7d B per changed doc",
					n, rep.Postings, k, what, rep.Duration.Round(time.Millisecond), rep.BytesToNodes, rep.BytesFromNodes, per)
			}
			table = append(table, line("full run", full))
			t.Log(table[len(table)-1])
			for round := 0; round < 2; round++ {
				base := next // 7919 is a prime dividing no archive size: changed distinct documents
				for i := 0; i < changed; i++ {
					pgtest.Exec(t, pool, `update documents set text = $2 where id = (select id from documents order by id offset $1 limit 1)`,
						(base+i*7919)%n, g.Doc(next).Text)
					next++
				}
				rep := mustRun(t, e, false)
				if rep.Kind != "incremental" || rep.Changed != changed {
					t.Fatalf("%s run of %d changes, want incremental of %d", rep.Kind, rep.Changed, changed)
				}
				table = append(table, line(fmt.Sprintf("incremental %d", changed), rep))
				t.Log(table[len(table)-1])
			}
			e.Close()
			for _, p := range procs {
				p.kill()
			}
		}
	}
	t.Log("summary:\n" + strings.Join(table, "\n"))
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func intList(t testing.TB, s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("%q is not a list of numbers", s)
		}
		out = append(out, n)
	}
	return out
}

// synthArchive is a fresh database holding synthetic documents 0..n-1 of g,
// loaded with COPY.
func synthArchive(t testing.TB, g *synth.Generator, n int) (string, *pgxpool.Pool) {
	t.Helper()
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
	return url, pool
}
