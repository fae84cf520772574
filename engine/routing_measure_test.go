package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/measure"
	"github.com/plagd/plagd/report"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/routing"
)

// TestMeasureLiveCheck times the live check end to end (docs/ROUTING.md):
// the whole-index check, the routed one and the routed one over all
// partitions, on near copies and partial copies of archive documents,
// with the partitions each visits. PLAGD_ROUTING_MEASURE=1 runs it;
// PLAGD_ROUTING_DOCS sets the archive size (default 10,000).
func TestMeasureLiveCheck(t *testing.T) {
	measure.Gate(t, "PLAGD_ROUTING_MEASURE")
	n := measure.EnvInt("PLAGD_ROUTING_DOCS", 10000)
	ctx := context.Background()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := config.Default()
	cfg.DatabaseURL, cfg.DataDir = url, t.TempDir()
	o := synth.Defaults()
	o.MeanWords = 600
	g := synth.New(o)
	rows := make([][]any, n)
	for i := range rows {
		d := g.Doc(i)
		rows[i] = []any{d.ExternalID, d.Text}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"documents"}, []string{"external_id", "text"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	mustRun(t, NewEngine(cfg, pool, enginetest.Logger(t)), false)
	t.Logf("%d documents indexed in %s", n, time.Since(t0).Round(time.Second))

	// Queries: near copies (a new first line) and partial copies (a third
	// of a document inside new text) of 100 archive documents.
	var near, partial []string
	for i := range 100 {
		src := rows[(i*97)%n][1].(string)
		near = append(near, "Resubmitted.\n"+src)
		partial = append(partial, g.Doc(n+i).Text+"\n"+src[:len(src)/3])
	}
	modes := []struct {
		name   string
		routed bool
		all    bool
	}{{"whole chunk index", false, false}, {"routed (K 128, m 4)", true, false}, {"routed, all partitions", true, true}}
	for _, set := range []struct {
		name  string
		texts []string
	}{{"near copies", near}, {"partial copies", partial}} {
		for _, md := range modes {
			c := cfg
			c.Routing.Enabled, c.Routing.AllPartitions = md.routed, md.all
			e := NewEngine(c, pool, enginetest.Logger(t))
			if _, err := e.CheckText(ctx, set.texts[0], 10, report.Options{}); err != nil { // load
				t.Fatal(err)
			}
			var lat []time.Duration
			found, parts := 0, 0
			for i, text := range set.texts {
				t1 := time.Now()
				rep, err := e.CheckText(ctx, text, 10, report.Options{})
				if err != nil {
					t.Fatal(err)
				}
				lat = append(lat, time.Since(t1))
				want := int64((i*97)%n + 1) // documents.id of the source (COPY order)
				for _, s := range rep.Sources {
					if s.ID == want {
						found++
						break
					}
				}
				if md.routed {
					fs := routing.Features([]byte(text), routing.DefaultParams)
					if md.all {
						parts += c.Routing.Partitions
					} else {
						parts += len(routing.Route(fs, c.Routing.Partitions, c.Routing.M, nil))
					}
				}
			}
			slices.Sort(lat)
			t.Logf("%-15s %-24s source found %3d/100, p50 %8s, p95 %8s, partitions visited %.1f",
				set.name, md.name, found, lat[50].Round(time.Millisecond), lat[95].Round(time.Millisecond), float64(parts)/100)
		}
	}
}
