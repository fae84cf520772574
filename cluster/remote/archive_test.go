package remote

// The archive stand-in, the brute-force reference and the text generator of
// cluster/master_test.go (package cluster's test file, not importable),
// copied so that the remote run is checked against the same scenario.

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
)

// memArchive is the test's stand-in for PostgreSQL: documents with texts,
// the texts last indexed, and the similarity table, updated from Outcomes
// exactly as the daemon's commit does.
type memArchive struct {
	mu      sync.Mutex              // Fresh and Stored are called by concurrent workers
	live    map[int64]string        // current texts of live documents
	stored  map[int64]string        // texts as last indexed
	staged  map[int64]string        // texts handed out during the run in progress
	rows    map[int64][]cluster.Row // similarity lists by doc
	changed map[int64]bool          // the change log
	lost    map[int64]int
	topK    int
}

func newMemArchive(topK int) *memArchive {
	return &memArchive{live: map[int64]string{}, stored: map[int64]string{}, rows: map[int64][]cluster.Row{},
		changed: map[int64]bool{}, lost: map[int64]int{}, topK: topK}
}

func (a *memArchive) Fresh(_ context.Context, ids []int64) ([]cluster.SourceText, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]cluster.SourceText, len(ids))
	for i, id := range ids {
		t, ok := a.live[id]
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

func (a *memArchive) Stored(_ context.Context, ids []int64) ([]cluster.SourceText, error) {
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

// plan derives a run's plan from the change log as the daemon does.
func (a *memArchive) plan(full bool, p cluster.Plan) cluster.Plan {
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
func (a *memArchive) commit(full bool, o *cluster.Outcome) {
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
		slices.SortFunc(list, func(x, y cluster.Row) int {
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
		list = slices.DeleteFunc(list, func(r cluster.Row) bool { return r.Other == id })
		if len(list) < n {
			a.lost[doc] += n - len(list)
		}
		a.rows[doc] = list
	}
	delete(a.rows, id)
}

func (a *memArchive) table() []cluster.Row {
	var out []cluster.Row
	for _, list := range a.rows {
		out = append(out, list...)
	}
	slices.SortFunc(out, func(x, y cluster.Row) int {
		if c := cmp.Compare(x.Doc, y.Doc); c != 0 {
			return c
		}
		return cmp.Compare(x.Other, y.Other)
	})
	return out
}

// reference computes the expected table from the live texts by brute force.
func reference(live map[int64]string, p cluster.Plan) []cluster.Row {
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
		slices.SortFunc(list, func(x, y cluster.Row) int {
			if x.Shared != y.Shared {
				return int(y.Shared) - int(x.Shared)
			}
			return cmp.Compare(x.Other, y.Other)
		})
		out = append(out, list[:min(len(list), p.TopK)]...)
	}
	slices.SortFunc(out, func(x, y cluster.Row) int {
		if c := cmp.Compare(x.Doc, y.Doc); c != 0 {
			return c
		}
		return cmp.Compare(x.Other, y.Other)
	})
	return out
}

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
