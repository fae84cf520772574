package engine

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/measure"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/neardup"
)

// TestMeasureNearDupsAtScale measures the product path of near-duplicate
// detection over a large stored collection (docs/NEARDUP.md, section 6):
// loading the index, the upload-time check (database round trips
// included) and plagd dups with the default budget against exact. It runs
// only with PLAGD_NEARDUP_MEASURE=1; PLAGD_NEARDUP_DOCS sets the size
// (default 1,000,000). The hashes are synthetic: per-bit weights drawn as a
// real simhash's (a sum of unit-norm TF-IDF weights: about N(0,1)), 1% of
// the documents with a planted near-duplicate whose weights moved by
// Gaussian noise, as an edited copy's do.
func TestMeasureNearDupsAtScale(t *testing.T) {
	measure.Gate(t, "PLAGD_NEARDUP_MEASURE")
	n := measure.EnvInt("PLAGD_NEARDUP_DOCS", 1_000_000)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 1)

	noisy := func(W *neardup.Weights) neardup.Weights {
		var c neardup.Weights
		sigma := 0.05 + 0.1*r.Float64()
		for j := range c {
			c[j] = W[j] + sigma*r.NormFloat64()
		}
		return c
	}
	draw := func() neardup.Weights {
		var W neardup.Weights
		for j := range W {
			W[j] = r.NormFloat64()
		}
		return W
	}
	var pairs []neardup.Pair
	for range 20000 {
		a := draw()
		b := noisy(&a)
		pairs = append(pairs, neardup.Pair{A: &a, B: &b})
	}
	model := &nearModel{Docs: n, SampleDocs: 0, Flip: neardup.LearnFlipModel(pairs)}

	t0 := time.Now()
	ws := make([]neardup.Weights, n)
	for i := range ws {
		if i%100 == 99 {
			ws[i] = noisy(&ws[i-1])
		} else {
			ws[i] = draw()
		}
	}
	if _, err := pool.Exec(ctx, `alter table documents disable trigger user`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `insert into documents (id, external_id, title) select g, 'm' || g, 'synthetic ' || g from generate_series(1, $1::int) g`, n); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := insertNearModel(ctx, tx, 1, model); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"simhashes"}, []string{"doc_id", "hash", "weights", "model", "run_id"},
		pgx.CopyFromSlice(n, func(i int) ([]any, error) {
			return []any{int64(i + 1), int64(neardup.HashOf(&ws[i])), encodeWeights(&ws[i]), model.Version, int64(1)}, nil
		})); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("stored %d documents with simhashes in %s", n, time.Since(t0).Round(time.Millisecond))

	nd := NewNearDups(pool, cfg)
	t0 = time.Now()
	if _, err := nd.snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("index load (read %d hashes, build PSM, t=%d): %s, %d bytes", n, nd.psm.HeaderBits(),
		time.Since(t0).Round(time.Millisecond), nd.psm.Bytes())

	// Upload-time checks: edited copies of stored documents (found or not
	// within h) and fresh texts, as CheckAndRecord's search sees them.
	for _, kind := range []string{"copy", "fresh"} {
		var lat []time.Duration
		found := 0
		for range 2000 {
			var W neardup.Weights
			if kind == "copy" {
				W = noisy(&ws[r.IntN(n)])
			} else {
				W = draw()
			}
			t1 := time.Now()
			s, err := nd.snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := nd.search(ctx, s, neardup.HashOf(&W), &W, 0)
			if err != nil {
				t.Fatal(err)
			}
			lat = append(lat, time.Since(t1))
			if len(got) > 0 {
				found++
			}
		}
		slices.Sort(lat)
		t.Logf("upload check, %s texts: p50 %s, p95 %s, p99 %s; %d of 2000 with a near-duplicate", kind,
			lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*95/100].Round(time.Microsecond),
			lat[len(lat)*99/100].Round(time.Microsecond), found)
	}

	// plagd dups with budgets against exact: relative recall of the pairs.
	var exactPairs int
	for _, budget := range []int{0, 8, 16, 32, 64, 128} {
		c := cfg
		c.NearDup.Budget = budget
		rep, err := Clusters(ctx, pool, c, DupsOptions{Exact: budget == 0})
		if err != nil {
			t.Fatal(err)
		}
		if budget == 0 {
			exactPairs = rep.Pairs
		}
		docs := 0
		for _, cl := range rep.Clusters {
			docs += len(cl.Documents)
		}
		t.Logf("plagd dups, budget %s: %s, %d pairs (relative recall %.4f), %d clusters with %d documents, %.1f lookups/document",
			budgetName(budget), rep.Took, rep.Pairs, float64(rep.Pairs)/float64(max(exactPairs, 1)),
			len(rep.Clusters), docs, float64(rep.Lookups)/float64(n))
	}
	// How many planted copies are within h at all (simhash's own recall).
	within := 0
	for i := 99; i < n; i += 100 {
		if bits.OnesCount64(neardup.HashOf(&ws[i])^neardup.HashOf(&ws[i-1])) <= cfg.NearDup.Distance {
			within++
		}
	}
	t.Logf("planted pairs within %d bits: %d of %d (%.1f%%)", cfg.NearDup.Distance, within, n/100,
		100*float64(within)/math.Max(1, float64(n/100)))
}

func budgetName(b int) string {
	if b == 0 {
		return "exact"
	}
	return fmt.Sprint(b)
}
