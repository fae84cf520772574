package clustertest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
)

// Archive is the tests' stand-in for PostgreSQL: documents with texts, the
// texts last indexed, and the similarity table, updated from Outcomes
// exactly as the daemon's commit does. A test changes Live and marks
// Changed, or calls HardDelete, then runs Plan, the master's Run (with the
// Archive as its TextSource) and Commit.
type Archive struct {
	Live    map[int64]string // current texts of live documents
	Changed map[int64]bool   // the change log: documents inserted, updated or deleted

	mu     sync.Mutex              // Fresh and Stored are called by concurrent workers
	stored map[int64]string        // texts as last indexed
	staged map[int64]string        // texts handed out since the last commit
	rows   map[int64][]cluster.Row // similarity lists by doc
	lost   map[int64]int           // rows each list lost by cascade since the last commit
	topK   int
}

// NewArchive returns an empty archive keeping topK rows per document.
func NewArchive(topK int) *Archive {
	return &Archive{Live: map[int64]string{}, Changed: map[int64]bool{}, stored: map[int64]string{},
		staged: map[int64]string{}, rows: map[int64][]cluster.Row{}, lost: map[int64]int{}, topK: topK}
}

// Fresh implements cluster.TextSource.
func (a *Archive) Fresh(_ context.Context, ids []int64) ([]cluster.SourceText, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]cluster.SourceText, len(ids))
	for i, id := range ids {
		t, ok := a.Live[id]
		switch {
		case !ok:
			out[i] = cluster.SourceText{ID: id, Gone: true}
		case strings.TrimSpace(t) == "":
			out[i] = cluster.SourceText{ID: id, Failed: "the document contains no text"}
		default:
			out[i] = cluster.SourceText{ID: id, Text: t}
			a.staged[id] = t
		}
	}
	return out, nil
}

// Stored implements cluster.TextSource.
func (a *Archive) Stored(_ context.Context, ids []int64) ([]cluster.SourceText, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]cluster.SourceText, len(ids))
	for i, id := range ids {
		if t, ok := a.stored[id]; ok {
			out[i] = cluster.SourceText{ID: id, Text: t}
		} else {
			out[i] = cluster.SourceText{ID: id, Gone: true}
		}
	}
	return out, nil
}

// Plan derives a run's plan from the change log as the daemon does, its
// holes by cluster.Holes.
func (a *Archive) Plan(full bool, p cluster.Plan) cluster.Plan {
	p.Full = full
	if full {
		for id := range a.Live {
			p.Upsert = append(p.Upsert, id)
		}
		slices.Sort(p.Upsert)
		return p
	}
	for id := range a.Changed {
		if _, ok := a.Live[id]; ok {
			p.Upsert = append(p.Upsert, id)
		} else {
			p.Delete = append(p.Delete, id)
		}
	}
	slices.Sort(p.Upsert)
	slices.Sort(p.Delete)
	p.Holes = cluster.Holes(a.rows, a.Changed, a.lost, func(id int64) bool { _, ok := a.Live[id]; return ok }, a.topK)
	return p
}

// Run is one run as the daemon makes it: planned from the change log, with
// Plan's fields from base, computed by m with a as its text source,
// committed in a and then in m. A run that fails is aborted and its error
// returned.
func (a *Archive) Run(ctx context.Context, m *cluster.Master, run int64, full bool, base cluster.Plan) error {
	p := a.Plan(full, base)
	p.Run = run
	out, err := m.Run(ctx, p, a)
	if err != nil {
		m.Abort(ctx)
		return err
	}
	a.Commit(full, out)
	return m.Commit(ctx, run)
}

// Commit applies an outcome like the daemon's commit of a run.
func (a *Archive) Commit(full bool, o *cluster.Outcome) {
	if full {
		a.rows = map[int64][]cluster.Row{}
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
		a.rows[doc] = slices.DeleteFunc(list, func(r cluster.Row) bool { return others[r.Other] })
	}
	for _, r := range o.Rows {
		a.rows[r.Doc] = append(a.rows[r.Doc], r)
	}
	for _, doc := range o.Trim {
		list := a.rows[doc]
		slices.SortFunc(list, byRank)
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
	a.Changed, a.lost, a.staged = map[int64]bool{}, map[int64]int{}, map[int64]string{}
}

// HardDelete removes a document; rows pointing at it vanish by cascade and
// the lists that held them are remembered, as the trigger does.
func (a *Archive) HardDelete(id int64) {
	delete(a.Live, id)
	a.Changed[id] = true
	for doc, list := range a.rows {
		n := len(list)
		list = slices.DeleteFunc(list, func(r cluster.Row) bool { return r.Other == id })
		if len(list) < n {
			a.lost[doc] += n - len(list)
		}
		a.rows[doc] = list
	}
	delete(a.rows, id)
}

// Apply makes changes in a as the daemon's triggers record them: a new text
// is set and logged, a hard deletion cascades (HardDelete).
func (a *Archive) Apply(changes []Change) {
	for _, c := range changes {
		if c.Hard {
			a.HardDelete(c.ID)
		} else {
			a.Live[c.ID] = c.Text
			a.Changed[c.ID] = true
		}
	}
}

// Table is the similarity table, sorted by (Doc, Other).
func (a *Archive) Table() []cluster.Row {
	var out []cluster.Row
	for _, list := range a.rows {
		out = append(out, list...)
	}
	slices.SortFunc(out, byPair)
	return out
}

// byRank is the order of a similarity list: most shared chunks first, then
// by the other document.
func byRank(x, y cluster.Row) int {
	return cmp.Or(cmp.Compare(y.Shared, x.Shared), cmp.Compare(x.Other, y.Other))
}

// byPair is the order of the table.
func byPair(x, y cluster.Row) int {
	return cmp.Or(cmp.Compare(x.Doc, y.Doc), cmp.Compare(x.Other, y.Other))
}

// Reference computes the table p must produce over the live texts, by brute
// force: every document's chunk set as a map, every pair compared.
func Reference(live map[int64]string, p cluster.Plan) []cluster.Row {
	return ReferenceSkip(live, p, nil)
}

// ReferenceSkip is Reference with the chunks skip rejects left out of each
// document's set (registered templates: cluster.SourceText.Skip); a nil skip
// keeps all.
func ReferenceSkip(live map[int64]string, p cluster.Plan, skip func(doc int64, chunk uint32, check uint8) bool) []cluster.Row {
	tok := invindex.NewTokenizer(p.Params)
	// A document's set maps each distinct chunk ID to its fingerprint; two
	// documents share a chunk when they have its ID with the same fingerprint.
	sets := map[int64]map[uint32]uint8{}
	df := map[uint32]int{}
	for id, t := range live {
		_, chunks, checks := tok.DocChunks(t)
		s := map[uint32]uint8{}
		for i, c := range chunks {
			if skip != nil && skip(id, c, checks[i]) {
				continue
			}
			s[c] = checks[i]
			df[c]++
		}
		if len(s) > 0 {
			sets[id] = s
		}
	}
	var out []cluster.Row
	for a, sa := range sets {
		var list []cluster.Row
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
				list = append(list, cluster.Row{Doc: a, Other: b, Shared: uint32(n), Similarity: float64(n) / float64(len(sa))})
			}
		}
		slices.SortFunc(list, byRank)
		out = append(out, list[:min(len(list), p.TopK)]...)
	}
	slices.SortFunc(out, byPair)
	return out
}

// TextGen makes texts over a small vocabulary with passages copied between
// them, so that pairs share chunks and top-k lists fill up.
type TextGen struct {
	Rng   *rand.Rand
	texts []string
}

// Text returns a new text.
func (g *TextGen) Text() string {
	var b strings.Builder
	for n := g.Rng.IntN(4); n >= 0; n-- {
		for i := 5 + g.Rng.IntN(40); i > 0; i-- {
			fmt.Fprintf(&b, "w%d ", int(200*g.Rng.Float64()*g.Rng.Float64()))
		}
		if len(g.texts) > 0 && g.Rng.IntN(3) > 0 {
			src := strings.Fields(g.texts[g.Rng.IntN(len(g.texts))])
			i := g.Rng.IntN(len(src))
			b.WriteString(strings.Join(src[i:min(len(src), i+6+g.Rng.IntN(30))], " "))
			b.WriteByte(' ')
		}
	}
	t := b.String()
	g.texts = append(g.texts, t)
	return t
}

// Change is one change to an archive: a document gets Text (new, edited,
// or emptied), or is hard-deleted.
type Change struct {
	ID   int64
	Text string
	Hard bool
}

// History makes random changes run after run and keeps the texts they
// leave, so that several archives (one per topology or transport under
// test) can be given the same changes and compared with one Reference.
type History struct {
	Live   map[int64]string // the live texts after the changes so far
	rng    *rand.Rand
	gen    *TextGen
	nextID int64
}

// NewHistory returns a history that draws its choices from rng and its
// texts from gen.
func NewHistory(rng *rand.Rand, gen *TextGen) *History {
	return &History{Live: map[int64]string{}, rng: rng, gen: gen}
}

// Next returns the changes of one run, 1 to 6 of them: half new documents,
// the rest edited, emptied or hard-deleted ones; Live follows them.
func (h *History) Next() []Change {
	var changes []Change
	for n := h.rng.IntN(6) + 1; n > 0; n-- {
		ids := slices.Sorted(maps.Keys(h.Live))
		switch op := h.rng.IntN(10); {
		case op < 5 || len(ids) == 0:
			h.nextID++
			changes = append(changes, Change{ID: h.nextID, Text: h.gen.Text()})
		case op < 7:
			changes = append(changes, Change{ID: ids[h.rng.IntN(len(ids))], Text: h.gen.Text()})
		case op < 8:
			changes = append(changes, Change{ID: ids[h.rng.IntN(len(ids))], Text: " "})
		default:
			changes = append(changes, Change{ID: ids[h.rng.IntN(len(ids))], Hard: true})
		}
	}
	for _, c := range changes {
		if c.Hard {
			delete(h.Live, c.ID)
		} else {
			h.Live[c.ID] = c.Text
		}
	}
	return changes
}
