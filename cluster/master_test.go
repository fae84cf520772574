package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/plagd/plagd/internal/testseed"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/invindex"
)

// memArchive is the test's stand-in for PostgreSQL: documents with texts,
// the texts last indexed, and the similarity table, updated from Outcomes
// exactly as the daemon's commit does.
type memArchive struct {
	mu      sync.Mutex       // Fresh and Stored are called by concurrent workers
	live    map[int64]string // current texts of live documents
	stored  map[int64]string // texts as last indexed
	staged  map[int64]string // texts handed out during the run in progress
	rows    map[int64][]Row  // similarity lists by doc
	changed map[int64]bool   // the change log
	lost    map[int64]int
	topK    int
}

func newMemArchive(topK int) *memArchive {
	return &memArchive{live: map[int64]string{}, stored: map[int64]string{}, rows: map[int64][]Row{},
		changed: map[int64]bool{}, lost: map[int64]int{}, topK: topK}
}

func (a *memArchive) Fresh(_ context.Context, ids []int64) ([]SourceText, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]SourceText, len(ids))
	for i, id := range ids {
		t, ok := a.live[id]
		switch {
		case !ok:
			out[i] = SourceText{ID: id, Gone: true}
		case strings.TrimSpace(t) == "":
			out[i] = SourceText{ID: id, Failed: "the document contains no text"}
		default:
			out[i] = SourceText{ID: id, Text: t}
			a.staged[id] = t
		}
	}
	return out, nil
}

func (a *memArchive) Stored(_ context.Context, ids []int64) ([]SourceText, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]SourceText, len(ids))
	for i, id := range ids {
		if t, ok := a.stored[id]; ok {
			out[i] = SourceText{ID: id, Text: t}
		} else {
			out[i] = SourceText{ID: id, Gone: true}
		}
	}
	return out, nil
}

// plan derives a run's plan from the change log as the daemon does.
func (a *memArchive) plan(full bool, p Plan) Plan {
	p.Full = full
	if full {
		for id := range a.live {
			p.Upsert = append(p.Upsert, id)
		}
		slices.Sort(p.Upsert)
		return p
	}
	for id := range a.changed {
		if _, ok := a.live[id]; ok {
			p.Upsert = append(p.Upsert, id)
		} else {
			p.Delete = append(p.Delete, id)
		}
	}
	lost := map[int64]int{}
	for id, n := range a.lost {
		lost[id] += n
	}
	for doc, list := range a.rows {
		for _, r := range list {
			if _, ok := lost[doc]; !ok && a.changed[r.Other] {
				lost[doc] = 0 // lost no row yet, but its row to a changed doc is replaced
			}
		}
	}
	for doc, n := range lost {
		_, alive := a.live[doc]
		if alive && !a.changed[doc] && len(a.rows[doc])+n >= a.topK {
			p.Holes = append(p.Holes, doc)
		}
	}
	slices.Sort(p.Upsert)
	slices.Sort(p.Delete)
	slices.Sort(p.Holes)
	return p
}

// commit applies an outcome like daemon.commitRun.
func (a *memArchive) commit(full bool, o *Outcome) {
	if full {
		a.rows = map[int64][]Row{}
		a.stored = map[int64]string{}
	}
	replace, others := map[int64]bool{}, map[int64]bool{}
	for _, id := range o.Replace {
		replace[id] = true
	}
	for _, id := range o.Others {
		others[id] = true
	}
	for doc, list := range a.rows {
		if replace[doc] {
			delete(a.rows, doc)
			continue
		}
		a.rows[doc] = slices.DeleteFunc(list, func(r Row) bool { return others[r.Other] })
	}
	for _, r := range o.Rows {
		a.rows[r.Doc] = append(a.rows[r.Doc], r)
	}
	for _, doc := range o.Trim {
		list := a.rows[doc]
		slices.SortFunc(list, func(x, y Row) int {
			if x.Shared != y.Shared {
				return int(y.Shared) - int(x.Shared)
			}
			return cmp.Compare(x.Other, y.Other)
		})
		a.rows[doc] = list[:min(len(list), a.topK)]
	}
	for _, d := range o.Docs {
		if d.Failed == "" {
			a.stored[d.ID] = a.staged[d.ID]
		} else {
			delete(a.stored, d.ID)
		}
	}
	for _, id := range o.Deleted {
		delete(a.stored, id)
	}
	a.changed, a.lost = map[int64]bool{}, map[int64]int{}
}

// hardDelete removes a document; rows pointing at it vanish by cascade and
// the lists that held them are remembered, as the trigger does.
func (a *memArchive) hardDelete(id int64) {
	delete(a.live, id)
	a.changed[id] = true
	for doc, list := range a.rows {
		n := len(list)
		list = slices.DeleteFunc(list, func(r Row) bool { return r.Other == id })
		if len(list) < n {
			a.lost[doc] += n - len(list)
		}
		a.rows[doc] = list
	}
	delete(a.rows, id)
}

func (a *memArchive) table() []Row {
	var out []Row
	for _, list := range a.rows {
		out = append(out, list...)
	}
	slices.SortFunc(out, func(x, y Row) int {
		if c := cmp.Compare(x.Doc, y.Doc); c != 0 {
			return c
		}
		return cmp.Compare(x.Other, y.Other)
	})
	return out
}

// reference computes the expected table from the live texts by brute force.
func reference(live map[int64]string, p Plan) []Row {
	tok := invindex.NewTokenizer(p.Params)
	// A document's set maps each distinct chunk ID to its fingerprint; two
	// documents share a chunk when they have its ID with the same fingerprint.
	sets := map[int64]map[uint32]uint8{}
	df := map[uint32]int{}
	for id, t := range live {
		_, chunks, checks := tok.DocChunks(t)
		if len(chunks) == 0 {
			continue
		}
		s := map[uint32]uint8{}
		for i, c := range chunks {
			s[c] = checks[i]
			df[c]++
		}
		sets[id] = s
	}
	var out []Row
	for a, sa := range sets {
		var list []Row
		for b, sb := range sets {
			if a == b {
				continue
			}
			n := 0
			for c, fa := range sa {
				if fb, ok := sb[c]; ok && fa == fb && (p.DFCap <= 0 || df[c] <= p.DFCap) {
					n++
				}
			}
			if n >= p.MinShared {
				list = append(list, Row{Doc: a, Other: b, Shared: uint32(n), Similarity: float64(n) / float64(len(sa))})
			}
		}
		slices.SortFunc(list, func(x, y Row) int {
			if x.Shared != y.Shared {
				return int(y.Shared) - int(x.Shared)
			}
			return cmp.Compare(x.Other, y.Other)
		})
		out = append(out, list[:min(len(list), p.TopK)]...)
	}
	slices.SortFunc(out, func(x, y Row) int {
		if c := cmp.Compare(x.Doc, y.Doc); c != 0 {
			return c
		}
		return cmp.Compare(x.Other, y.Other)
	})
	return out
}

func seed(t *testing.T) uint64 { t.Helper(); return testseed.Seed(t) }

// textGen makes texts over a small vocabulary with passages copied between them.
type textGen struct {
	rng   *rand.Rand
	texts []string
}

func (g *textGen) text() string {
	var b strings.Builder
	for n := g.rng.IntN(4); n >= 0; n-- {
		for i := 5 + g.rng.IntN(40); i > 0; i-- {
			fmt.Fprintf(&b, "w%d ", int(200*g.rng.Float64()*g.rng.Float64()))
		}
		if len(g.texts) > 0 && g.rng.IntN(3) > 0 {
			src := strings.Fields(g.texts[g.rng.IntN(len(g.texts))])
			i := g.rng.IntN(len(src))
			b.WriteString(strings.Join(src[i:min(len(src), i+6+g.rng.IntN(30))], " "))
			b.WriteByte(' ')
		}
	}
	t := b.String()
	g.texts = append(g.texts, t)
	return t
}

// TestMaster_TopologyAndIncremental drives the same random history through
// masters with different node counts. After every run each must hold the
// reference table; all must agree row for row (the design's invariant: incremental
// equals full, same result for any topology).
func TestMaster_TopologyAndIncremental(t *testing.T) {
	defer func(r int) { compactRatio = r }(compactRatio)
	for _, tc := range []struct{ dfCap, ratio int }{{0, 8}, {0, 1 << 30}, {0, 1}, {4, 8}} {
		dfCap := tc.dfCap
		compactRatio = tc.ratio // 1<<30: deltas only; 1: compact every run
		t.Run(fmt.Sprintf("dfcap=%d/compact=%d", tc.dfCap, tc.ratio), func(t *testing.T) {
			s := seed(t)
			rng := rand.New(rand.NewPCG(s, 1))
			gen := &textGen{rng: rand.New(rand.NewPCG(s, 2))}
			base := Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, MinShared: 2, TopK: 3, BatchSize: 5, DFCap: dfCap}
			ks := []int{1, 2, 3, 4, 7}
			masters := make([]*Master, len(ks))
			archives := make([]*memArchive, len(ks))
			for i, k := range ks {
				masters[i] = NewMaster(NewLocalNodes(base.Params, k), zerolog.Nop())
				archives[i] = newMemArchive(base.TopK)
			}
			live := map[int64]string{}
			var nextID int64
			for run := 1; run <= 30; run++ {
				// The same random changes for every archive.
				type change struct {
					id   int64
					text string
					hard bool
				}
				var changes []change
				for n := rng.IntN(6) + 1; n > 0; n-- {
					ids := make([]int64, 0, len(live))
					for id := range live {
						ids = append(ids, id)
					}
					slices.Sort(ids)
					switch op := rng.IntN(10); {
					case op < 5 || len(ids) == 0:
						nextID++
						changes = append(changes, change{id: nextID, text: gen.text()})
					case op < 7:
						changes = append(changes, change{id: ids[rng.IntN(len(ids))], text: gen.text()})
					case op < 8:
						changes = append(changes, change{id: ids[rng.IntN(len(ids))], text: " "})
					default:
						changes = append(changes, change{id: ids[rng.IntN(len(ids))], hard: true})
					}
				}
				for _, c := range changes {
					if c.hard {
						delete(live, c.id)
					} else {
						live[c.id] = c.text
					}
				}
				full := run == 1 || rng.IntN(10) == 0
				want := reference(live, base)
				var first []Row
				for i, m := range masters {
					a := archives[i]
					for _, c := range changes {
						if c.hard {
							a.hardDelete(c.id)
						} else {
							a.live[c.id] = c.text
							a.changed[c.id] = true
						}
					}
					p := a.plan(full, base)
					p.Run = int64(run)
					a.staged = map[int64]string{}
					out, err := m.Run(context.Background(), p, a)
					if err != nil {
						t.Fatalf("K=%d run %d: %v", ks[i], run, err)
					}
					a.commit(full, out)
					if err := m.Commit(context.Background(), int64(run)); err != nil {
						t.Fatal(err)
					}
					got := a.table()
					if !slices.Equal(got, want) {
						t.Fatalf("K=%d run %d (full=%v): table differs from the reference\n got %v\nwant %v", ks[i], run, full, got, want)
					}
					if i == 0 {
						first = got
					} else if !slices.Equal(got, first) {
						t.Fatalf("K=%d differs from K=1 at run %d", ks[i], run)
					}
				}
			}
		})
	}
}

// TestMaster_AbortKeepsCommitted: a run that is aborted leaves the committed
// generation and document table as they were, and the next run is exact.
func TestMaster_AbortKeepsCommitted(t *testing.T) {
	s := seed(t)
	gen := &textGen{rng: rand.New(rand.NewPCG(s, 3))}
	base := Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 24}, MinShared: 1, TopK: 5, BatchSize: 3}
	m := NewMaster(NewLocalNodes(base.Params, 2), zerolog.Nop())
	a := newMemArchive(base.TopK)
	for id := int64(1); id <= 12; id++ {
		a.live[id] = gen.text()
		a.changed[id] = true
	}
	p := a.plan(true, base)
	p.Run = 1
	a.staged = map[int64]string{}
	out, err := m.Run(context.Background(), p, a)
	if err != nil {
		t.Fatal(err)
	}
	a.commit(true, out)
	m.Commit(context.Background(), 1)
	docs := m.Docs().Len()

	a.live[3] = gen.text()
	a.changed[3] = true
	a.hardDelete(5)
	p = a.plan(false, base)
	p.Run, p.Full = 2, false
	a.staged = map[int64]string{}
	if _, err := m.Run(context.Background(), p, a); err != nil {
		t.Fatal(err)
	}
	m.Abort(context.Background()) // e.g. the PostgreSQL commit failed
	if m.Generation() != 1 || m.Docs().Len() != docs {
		t.Fatalf("after abort: generation %d with %d docs, want 1 with %d", m.Generation(), m.Docs().Len(), docs)
	}
	p.Run = 3 // the next run sees the same pending changes
	a.staged = map[int64]string{}
	out, err = m.Run(context.Background(), p, a)
	if err != nil {
		t.Fatal(err)
	}
	a.commit(false, out)
	m.Commit(context.Background(), 3)
	if got, want := a.table(), reference(a.live, base); !slices.Equal(got, want) {
		t.Fatalf("after abort and rerun: table differs from the reference")
	}
}

// TestMaster_StaleNodeRefused: a node that holds another generation refuses
// to build an incremental run on it.
func TestMaster_StaleNodeRefused(t *testing.T) {
	n := NewLocalNode(0, 1<<20)
	err := n.Begin(context.Background(), RunSpec{Run: 5, Base: 4, Params: invindex.Params{WindowWords: 3, ChunkBits: 20}}, nil)
	if !errors.Is(err, ErrStale) {
		t.Fatalf("Begin on a stale node: %v, want ErrStale", err)
	}
}

func TestSplitByRange(t *testing.T) {
	bounds := []uint64{0, 10, 20, 1 << 32}
	c := Chunked{Doc: 7, Chunks: []uint32{1, 9, 10, 15, 20, 1<<32 - 1}, Checks: []uint8{1, 2, 3, 4, 5, 6}}
	parts := splitByRange(c, bounds)
	want := [][]uint32{{1, 9}, {10, 15}, {20, 1<<32 - 1}}
	wantChecks := [][]uint8{{1, 2}, {3, 4}, {5, 6}}
	for i := range want {
		if parts[i].Doc != 7 || !slices.Equal(parts[i].Chunks, want[i]) || !slices.Equal(parts[i].Checks, wantChecks[i]) {
			t.Fatalf("part %d = %+v, want %v %v", i, parts[i], want[i], wantChecks[i])
		}
	}
}
