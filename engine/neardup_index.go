package engine

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/neardup"
)

// NearDuplicate is a document whose simhash is within neardup.distance bits
// of another text's: a re-upload, a resubmission with a new title page, a
// lightly edited copy. Its header fields are archive.Header's, declared one by
// one because JSON keeps the fields' order and the API lists title before
// external_id here (an embedded Header would change the answers); Head
// returns them as a archive.Header.
type NearDuplicate struct {
	ID         int64  `json:"id"`
	Title      string `json:"title,omitempty"`
	Author     string `json:"author,omitempty"`
	ExternalID string `json:"external_id,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Year       int    `json:"year,omitempty"`
	Restricted bool   `json:"restricted"`
	// Distance is the number of differing bits of the two 64-bit simhashes
	// (0: the same words in the same proportions).
	Distance int `json:"distance"`
	// Pending: uploaded but not yet through a run (its similarity report
	// is not ready).
	Pending bool `json:"pending"`
}

// Head is d's header.
func (d NearDuplicate) Head() archive.Header {
	return archive.Header{ExternalID: d.ExternalID, Title: d.Title, Author: d.Author, Kind: d.Kind, Year: d.Year, Restricted: d.Restricted}
}

// NearDups answers near-duplicate queries from an in-memory PSM index of the
// stored simhashes (Sood and Loguinov): at upload, before any run, and for reports.
// Every query first fetches the hashes written since the last one (by runs,
// by this process's or another's uploads), so a bulk upload sees its own
// earlier files; candidates are then checked against the database, so a
// document deleted or changed since is never reported. Safe for concurrent use.
type NearDups struct {
	pool *pgxpool.Pool
	cfg  config.Config

	mu       sync.Mutex
	model    *nearModel
	ids      []int64         // Entry.ID -> document ID
	psm      *neardup.PSM    // hashes up to seq at the last rebuild
	recent   []neardup.Entry // written since, searched by brute force
	seq      int64
	searcher sync.Pool
}

// NewNearDups returns an index that loads itself on first use.
func NewNearDups(pool *pgxpool.Pool, cfg config.Config) *NearDups {
	return &NearDups{pool: pool, cfg: cfg, searcher: sync.Pool{New: func() any { return new(neardup.Searcher) }}}
}

// nearSnapshot is what one query searches, taken under the lock.
type nearSnapshot struct {
	model  *nearModel
	ids    []int64
	psm    *neardup.PSM
	recent []neardup.Entry
}

// snapshot brings the index up to date with the database and returns it.
func (n *NearDups) snapshot(ctx context.Context) (nearSnapshot, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v, err := nearModelVersion(ctx, n.pool)
	if err != nil {
		return nearSnapshot{}, err
	}
	if n.model == nil || n.model.Version != v {
		if err := n.reload(ctx); err != nil {
			return nearSnapshot{}, err
		}
	} else {
		// Brute force over the recent hashes costs about 1 ns each; past
		// max(4096, n/8) of them, rebuilding (about 1 s per million
		// hashes) pays. The LIMIT
		// also keeps the plan on the seq index when the table's statistics
		// are stale after a big run (a sequential scan of 1M rows: 12 ms).
		room := max(4096, n.psm.Len()/8) - len(n.recent)
		rows, err := n.pool.Query(ctx, `select doc_id, hash, seq, model = $2 from simhashes
			where seq > $1 order by seq limit $3`, n.seq, n.model.Version, room+1)
		if err != nil {
			return nearSnapshot{}, fmt.Errorf("read new simhashes: %w", err)
		}
		var id, hash, seq int64
		var current bool
		read := 0
		_, err = pgx.ForEachRow(rows, []any{&id, &hash, &seq, &current}, func() error {
			read++
			n.seq = seq
			if current { // an upload hashed under an older model waits for its run
				n.recent = append(n.recent, neardup.Entry{Hash: uint64(hash), ID: uint32(len(n.ids))})
				n.ids = append(n.ids, id)
			}
			return nil
		})
		if err != nil {
			return nearSnapshot{}, fmt.Errorf("read new simhashes: %w", err)
		}
		if read > room {
			if err := n.reload(ctx); err != nil {
				return nearSnapshot{}, err
			}
		}
	}
	return nearSnapshot{model: n.model, ids: n.ids, psm: n.psm, recent: n.recent[:len(n.recent):len(n.recent)]}, nil
}

// reload reads the model and every hash of it and rebuilds the PSM.
func (n *NearDups) reload(ctx context.Context) error {
	m, err := loadNearModel(ctx, n.pool)
	if err != nil {
		return err
	}
	rows, err := n.pool.Query(ctx, `select doc_id, hash, seq from simhashes where model = $1`, m.Version)
	if err != nil {
		return fmt.Errorf("read simhashes: %w", err)
	}
	var entries []neardup.Entry
	var ids []int64
	var seq int64
	var id, hash, s int64
	if _, err := pgx.ForEachRow(rows, []any{&id, &hash, &s}, func() error {
		entries = append(entries, neardup.Entry{Hash: uint64(hash), ID: uint32(len(ids))})
		ids = append(ids, id)
		seq = max(seq, s)
		return nil
	}); err != nil {
		return fmt.Errorf("read simhashes: %w", err)
	}
	n.model, n.ids, n.seq, n.recent = m, ids, seq, nil
	n.psm = neardup.NewPSM(entries, neardup.HeaderBitsFor(len(entries)))
	return nil
}

// search returns the documents (other than self) whose current hash is
// within neardup.distance of hash, nearest first.
func (n *NearDups) search(ctx context.Context, s nearSnapshot, hash uint64, W *neardup.Weights, self int64) ([]NearDuplicate, error) {
	h := n.cfg.NearDup.Distance
	probs := s.model.Flip.Probs(W)
	sr := n.searcher.Get().(*neardup.Searcher)
	ms, _ := sr.Query(s.psm, hash, &probs, neardup.QueryOpts{H: h, Budget: n.cfg.NearDup.Budget}, nil)
	n.searcher.Put(sr)
	ms = neardup.Near(s.recent, hash, h, ms)
	cand := make([]int64, 0, len(ms))
	for _, m := range ms {
		if id := s.ids[m.ID]; id != self {
			cand = append(cand, id)
		}
	}
	if len(cand) == 0 {
		return nil, nil
	}
	// The in-memory hash may be stale (the document changed or was
	// deleted since): the database decides.
	rows, err := n.pool.Query(ctx, `
		select s.doc_id, s.hash, s.run_id is null, coalesce(d.title, ''), coalesce(d.author, ''),
			coalesce(d.external_id, ''), coalesce(d.kind, ''), coalesce(d.year, 0), d.restricted
		from simhashes s join documents d on d.id = s.doc_id
		where s.doc_id = any($1) and s.model = $2 and d.deleted_at is null`, cand, s.model.Version)
	if err != nil {
		return nil, fmt.Errorf("read near-duplicate candidates: %w", err)
	}
	var out []NearDuplicate
	var d NearDuplicate
	var stored int64
	if _, err := pgx.ForEachRow(rows, []any{&d.ID, &stored, &d.Pending, &d.Title, &d.Author, &d.ExternalID,
		&d.Kind, &d.Year, &d.Restricted}, func() error {
		if d.Distance = bits.OnesCount64(uint64(stored) ^ hash); d.Distance <= h {
			out = append(out, d)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read near-duplicate candidates: %w", err)
	}
	slices.SortFunc(out, func(a, b NearDuplicate) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Check finds the documents near a text that is not stored (or is stored
// as self, which is left out; 0 for none).
func (n *NearDups) Check(ctx context.Context, text string, self int64) ([]NearDuplicate, error) {
	s, err := n.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	hash, W := s.model.hasher(n.cfg.Params()).hash(text)
	return n.search(ctx, s, hash, &W, self)
}

// CheckAndRecord is the upload-time check: it finds the documents near the
// text of document id, just stored, then stores id's hash so that later
// uploads are compared with it before the next run hashes it for good. A
// document that a run has taken up meanwhile (no change pending) keeps the
// run's hash.
func (n *NearDups) CheckAndRecord(ctx context.Context, id int64, text string) ([]NearDuplicate, error) {
	s, err := n.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	hash, W := s.model.hasher(n.cfg.Params()).hash(text)
	dups, err := n.search(ctx, s, hash, &W, id)
	if err != nil {
		return nil, err
	}
	if _, err := n.pool.Exec(ctx, `
		insert into simhashes (doc_id, hash, weights, model, run_id)
		select $1, $2, $3, $4, null where exists (select 1 from plagd_changes where doc_id = $1)
		on conflict (doc_id) do update set hash = excluded.hash, weights = excluded.weights,
			model = excluded.model, run_id = null, seq = nextval('simhashes_seq')`,
		id, int64(hash), encodeWeights(&W), s.model.Version); err != nil {
		return dups, fmt.Errorf("store the simhash of document %d: %w", id, err)
	}
	return dups, nil
}

// Of finds the near-duplicates of a stored document from its stored hash.
// hashed is false when the document has no hash of the current model (not
// yet through a run nor uploaded through plagd, or failed): then "none"
// means "not checked", not "no near-duplicate".
func (n *NearDups) Of(ctx context.Context, id int64) (dups []NearDuplicate, hashed bool, err error) {
	s, err := n.snapshot(ctx)
	if err != nil {
		return nil, false, err
	}
	var hash int64
	var wb []byte
	err = n.pool.QueryRow(ctx, `select hash, weights from simhashes where doc_id = $1 and model = $2`,
		id, s.model.Version).Scan(&hash, &wb)
	if err == pgx.ErrNoRows {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the simhash of document %d: %w", id, err)
	}
	W, err := decodeWeights(wb)
	if err != nil {
		return nil, true, fmt.Errorf("document %d: %w", id, err)
	}
	dups, err = n.search(ctx, s, uint64(hash), &W, id)
	return dups, true, err
}
