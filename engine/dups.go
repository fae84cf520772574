package engine

import (
	"context"
	"fmt"
	"math/bits"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/neardup"
	"github.com/plagd/plagd/store"
)

// DupCluster is a group of documents joined by near-duplicate pairs (single
// linkage: A~B and B~C put A, B and C together).
type DupCluster struct {
	// Documents, by ID; each one's Distance is to its nearest other member.
	Documents []NearDuplicate `json:"documents"`
	// Diameter is the largest distance between two members, in bits: more
	// than h only when the cluster is a chain.
	Diameter int `json:"diameter"`
}

// DupsOptions controls Clusters.
type DupsOptions struct {
	Distance int  // h; 0 uses neardup.distance
	Exact    bool // every header flip, instead of neardup.budget lookups per document
	MinSize  int  // smallest cluster listed; below 2 means 2
}

// DupsReport is what Clusters found and what it cost.
type DupsReport struct {
	Distance  int          `json:"distance"`
	Documents int          `json:"documents"` // hashes compared
	Pairs     int          `json:"pairs"`     // near-duplicate pairs found
	Lookups   int64        `json:"lookups"`   // PSM header lookups
	Model     int64        `json:"model"`     // near-duplicate model version (0: none yet)
	Took      string       `json:"took"`
	Clusters  []DupCluster `json:"clusters"`
}

// Clusters finds every near-duplicate pair among the stored simhashes of
// live documents (PSM's batch self-join: each hash is a query against all)
// and groups them. It reads the hashes twice (to index them, then the
// per-bit weights for the queries), so memory stays at the index's 16 bytes
// a document.
func Clusters(ctx context.Context, pool *pgxpool.Pool, cfg config.Config, opt DupsOptions) (DupsReport, error) {
	start := time.Now()
	h := opt.Distance
	if h <= 0 {
		h = cfg.NearDup.Distance
	}
	rep := DupsReport{Distance: h, Clusters: []DupCluster{}}
	// One snapshot for both reads, so row i of the second is document i of the first.
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return rep, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	m, err := loadNearModel(ctx, tx)
	if err != nil {
		return rep, err
	}
	rep.Model = m.Version
	ids, entries, err := liveHashes(ctx, tx, m.Version)
	if err != nil {
		return rep, err
	}
	rep.Documents = len(ids)
	o := neardup.QueryOpts{H: h, Budget: cfg.NearDup.Budget}
	if opt.Exact {
		o.Budget = 0
	}
	pairs, nearest, lookups, err := nearPairs(ctx, tx, m, entries, o)
	if err != nil {
		return rep, err
	}
	rep.Pairs, rep.Lookups = len(pairs), lookups

	minSize := max(opt.MinSize, 2)
	var members []int64
	var groups [][]uint32
	for _, c := range neardup.Components(len(ids), pairs) {
		if len(c) < minSize {
			continue
		}
		groups = append(groups, c)
		for _, k := range c {
			members = append(members, ids[k])
		}
	}
	meta, err := documentMeta(ctx, tx, members)
	if err != nil {
		return rep, err
	}
	for _, c := range groups {
		dc := DupCluster{}
		for a, k := range c {
			d := meta[ids[k]]
			d.ID, d.Distance = ids[k], nearest[k]
			dc.Documents = append(dc.Documents, d)
			for _, l := range c[a+1:] {
				dc.Diameter = max(dc.Diameter, bits.OnesCount64(entries[k].Hash^entries[l].Hash))
			}
		}
		rep.Clusters = append(rep.Clusters, dc)
	}
	rep.Took = time.Since(start).Round(time.Millisecond).String()
	return rep, nil
}

// liveHashesFrom are the simhashes of live documents under one model, by
// document; nearPairs reads their weights in the same order.
const liveHashesFrom = `from simhashes s join documents d on d.id = s.doc_id where s.model = $1 and d.deleted_at is null`

// liveHashes reads the simhashes of live documents under model version:
// ids[i] is the document of entries[i] (whose ID is i).
func liveHashes(ctx context.Context, tx pgx.Tx, version int64) ([]int64, []neardup.Entry, error) {
	rows, err := tx.Query(ctx, `select s.doc_id, s.hash `+liveHashesFrom+` order by s.doc_id`, version)
	if err != nil {
		return nil, nil, fmt.Errorf("read simhashes: %w", err)
	}
	var ids []int64
	var entries []neardup.Entry
	var id, hash int64
	if _, err := pgx.ForEachRow(rows, []any{&id, &hash}, func() error {
		entries = append(entries, neardup.Entry{Hash: uint64(hash), ID: uint32(len(ids))})
		ids = append(ids, id)
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("read simhashes: %w", err)
	}
	return ids, entries, nil
}

// nearPairs queries every hash against the others (PSM under the model's
// flip probabilities) and returns the pairs found within o.H bits, each
// entry's distance to its nearest, and the lookups made. With a budget the
// relation found need not be symmetric (A may find B and B miss A), so a
// pair counts once from either side.
func nearPairs(ctx context.Context, tx pgx.Tx, m *nearModel, entries []neardup.Entry, o neardup.QueryOpts) (pairs [][2]uint32, nearest []int, lookups int64, err error) {
	x := neardup.NewPSM(entries, neardup.HeaderBitsFor(len(entries)))
	nearest = make([]int, len(entries))
	for i := range nearest {
		nearest[i] = 65
	}
	seen := map[[2]uint32]bool{}
	var s neardup.Searcher
	var ms []neardup.Match
	var wb []byte
	var hash int64
	i := 0
	rows, err := tx.Query(ctx, `select s.hash, s.weights `+liveHashesFrom+` order by s.doc_id`, m.Version)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("read simhash weights: %w", err)
	}
	if _, err := pgx.ForEachRow(rows, []any{&hash, &wb}, func() error {
		W, err := decodeWeights(wb)
		if err != nil {
			return err
		}
		p := m.Flip.Probs(&W)
		var n int
		ms, n = s.Query(x, uint64(hash), &p, o, ms[:0])
		lookups += int64(n)
		for _, mt := range ms {
			j := mt.ID
			if j == uint32(i) {
				continue
			}
			nearest[i] = min(nearest[i], mt.Dist)
			nearest[j] = min(nearest[j], mt.Dist)
			k := [2]uint32{min(uint32(i), j), max(uint32(i), j)}
			if !seen[k] {
				seen[k] = true
				pairs = append(pairs, k)
			}
		}
		i++
		return nil
	}); err != nil {
		return nil, nil, 0, fmt.Errorf("query simhashes: %w", err)
	}
	return pairs, nearest, lookups, nil
}

// documentMeta reads what a near-duplicate listing shows of each document.
func documentMeta(ctx context.Context, q store.Querier, ids []int64) (map[int64]NearDuplicate, error) {
	rows, err := q.Query(ctx, `
		select d.id, coalesce(d.title, ''), coalesce(d.author, ''), coalesce(d.external_id, ''),
			coalesce(d.kind, ''), coalesce(d.year, 0), d.restricted, s.run_id is null
		from documents d join simhashes s on s.doc_id = d.id where d.id = any($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	out := make(map[int64]NearDuplicate, len(ids))
	var d NearDuplicate
	if _, err := pgx.ForEachRow(rows, []any{&d.ID, &d.Title, &d.Author, &d.ExternalID, &d.Kind, &d.Year,
		&d.Restricted, &d.Pending}, func() error {
		out[d.ID] = d
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	return out, nil
}
