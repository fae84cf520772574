package invindex

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/plagd/plagd/internal/hugepage"
)

// DocSet is a bitset over DocIDs: the documents a run removes or modifies,
// tested once per posting during Update, so it must cost one load and a
// mask. A nil *DocSet is the empty set.
type DocSet struct {
	words []uint64
	n     int
}

// NewDocSet returns an empty set sized for DocIDs below n; it grows if a
// bigger DocID is added.
func NewDocSet(n int) *DocSet { return &DocSet{words: make([]uint64, (max(n, 0)+63)/64)} }

// Add puts d in the set.
func (s *DocSet) Add(d DocID) {
	w := int(d >> 6)
	if w >= len(s.words) {
		s.words = append(s.words, make([]uint64, w+1-len(s.words))...)
	}
	m := uint64(1) << (d & 63)
	if s.words[w]&m == 0 {
		s.words[w] |= m
		s.n++
	}
}

// Has reports whether d is in the set.
func (s *DocSet) Has(d DocID) bool {
	if s == nil {
		return false
	}
	w := int(d >> 6)
	return w < len(s.words) && s.words[w]&(1<<(d&63)) != 0
}

// Len is the number of documents in the set.
func (s *DocSet) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// appendTo appends the members in ascending order.
func (s *DocSet) appendTo(dst []DocID) []DocID {
	for w, x := range s.words {
		for x != 0 {
			dst = append(dst, DocID(w<<6+bits.TrailingZeros64(x)))
			x &= x - 1
		}
	}
	return dst
}

// Update returns a new Slice equal to s without any posting of a doc in
// removed, plus the postings of added (an added doc may also be in removed:
// it is "modified"; an added doc that already has postings in s and is not
// in removed gets the union, with the added fingerprint where both have a
// chunk). s is not modified: the old generation must survive until commit.
// added follows BuildSlice's rules. Postings are matched and removed by
// document, whatever their fingerprints.
//
// dfCap > 0 also returns, sorted and distinct, the documents present in the
// new slice, not in removed and not in added, that post on at least one
// chunk whose counted status (df <= dfCap, df counting every posting of the
// chunk ID whatever its fingerprint) differs between s and the result.
// Their shared counts with other unchanged documents changed although
// neither document did, so their similarity lists must be recomputed (the
// "incremental equals full" invariant). dfCap <= 0 returns nil.
//
// The merge walks old and new keys in one ordered pass, twice: the first
// pass only counts, so the second writes into arrays of their exact final
// size (no growth, no trimming copy). Runs of untouched keys are copied in
// bulk. Cost is linear in the slice size.
func (s *Slice) Update(removed *DocSet, added []DocChunks, dfCap int) (*Slice, []DocID) {
	add := BuildSlice(s.lo, s.hi, added)
	m := merger{old: s, add: add, removed: removed, dfCap: dfCap}
	if removed.Len() == 0 {
		m.removed = nil
	}
	if dfCap > 0 {
		m.addedSet = NewDocSet(int(add.maxDoc))
		for i := range added {
			m.addedSet.Add(added[i].Doc)
		}
	}
	nk, np := m.count()
	if np > math.MaxUint32 {
		panic(fmt.Sprintf("invindex: update gives %d postings, more than a slice holds", np))
	}
	out := &Slice{
		lo:   s.lo,
		hi:   s.hi,
		keys: hugepage.Make[uint32](nk),
		offs: hugepage.Make[uint32](nk + 1),
		docs: hugepage.Make[Posting](int(np)),
	}
	m.fill(out)
	out.finishWith(presentAfter(s.present, m.removed, added))
	if m.flipped == nil {
		if dfCap > 0 {
			return out, []DocID{}
		}
		return out, nil
	}
	return out, m.flipped.appendTo(nil)
}

type merger struct {
	old, add *Slice
	removed  *DocSet // nil when empty: the fast paths test this
	dfCap    int
	addedSet *DocSet
	flipped  *DocSet
}

// gone reports whether posting p belongs to a removed doc.
func (m *merger) gone(p Posting) bool { return m.removed.Has(PostingDoc(p)) }

// survivors counts the postings of ps whose doc is not in removed.
func (m *merger) survivors(ps []Posting) int {
	if m.removed == nil {
		return len(ps)
	}
	n := 0
	for _, p := range ps {
		if !m.gone(p) {
			n++
		}
	}
	return n
}

// count returns the exact key and posting counts of the merged slice.
func (m *merger) count() (keys int, postings uint64) {
	o, a := m.old, m.add
	i, j := 0, 0
	for i < len(o.keys) || j < len(a.keys) {
		n := 0
		switch {
		case j == len(a.keys) || (i < len(o.keys) && o.keys[i] < a.keys[j]):
			n = m.survivors(o.docs[o.offs[i]:o.offs[i+1]])
			i++
		case i == len(o.keys) || a.keys[j] < o.keys[i]:
			n = int(a.offs[j+1] - a.offs[j])
			j++
		default:
			n = m.mergeCount(o.docs[o.offs[i]:o.offs[i+1]], a.docs[a.offs[j]:a.offs[j+1]])
			i++
			j++
		}
		if n > 0 {
			keys++
			postings += uint64(n)
		}
	}
	return keys, postings
}

// mergeCount is len(mergeDocs(nil, od, ad)) without the allocation.
func (m *merger) mergeCount(od, ad []Posting) int {
	n, x, y := 0, 0, 0
	for x < len(od) && y < len(ad) {
		switch {
		case PostingDoc(od[x]) < PostingDoc(ad[y]):
			if !m.gone(od[x]) {
				n++
			}
			x++
		case PostingDoc(ad[y]) < PostingDoc(od[x]):
			n++
			y++
		default:
			n++
			x++
			y++
		}
	}
	return n + m.survivors(od[x:]) + len(ad) - y
}

// mergeDocs appends to dst the union of the survivors of od and ad (both
// ascending by doc), ascending and with each doc once; a doc in both keeps
// its added posting.
func (m *merger) mergeDocs(dst, od, ad []Posting) []Posting {
	x, y := 0, 0
	for x < len(od) || y < len(ad) {
		switch {
		case y == len(ad) || (x < len(od) && PostingDoc(od[x]) < PostingDoc(ad[y])):
			if !m.gone(od[x]) {
				dst = append(dst, od[x])
			}
			x++
		case x == len(od) || PostingDoc(ad[y]) < PostingDoc(od[x]):
			dst = append(dst, ad[y])
			y++
		default:
			dst = append(dst, ad[y])
			x++
			y++
		}
	}
	return dst
}

// fill writes the merged slice into out.
func (m *merger) fill(out *Slice) {
	o, a := m.old, m.add
	i, j, k, p := 0, 0, 0, 0
	for i < len(o.keys) || j < len(a.keys) {
		if m.removed == nil && m.dfCap <= 0 && i < len(o.keys) && (j == len(a.keys) || o.keys[i] < a.keys[j]) {
			// Bulk copy the run of old keys before the next new key:
			// nothing in it changes but the offsets' base.
			e := len(o.keys)
			if j < len(a.keys) {
				e = i + lowerBound(o.keys[i:], a.keys[j])
			}
			copy(out.keys[k:], o.keys[i:e])
			shift := uint32(p) - o.offs[i]
			for q := i; q < e; q++ {
				out.offs[k] = o.offs[q] + shift
				k++
			}
			p += copy(out.docs[p:], o.docs[o.offs[i]:o.offs[e]])
			i = e
			continue
		}
		var key uint32
		var od []Posting
		start := p
		switch {
		case j == len(a.keys) || (i < len(o.keys) && o.keys[i] < a.keys[j]):
			key, od = o.keys[i], o.docs[o.offs[i]:o.offs[i+1]]
			i++
			if m.removed == nil {
				p += copy(out.docs[p:], od)
			} else {
				for _, q := range od {
					if !m.gone(q) {
						out.docs[p] = q
						p++
					}
				}
			}
		case i == len(o.keys) || a.keys[j] < o.keys[i]:
			key = a.keys[j]
			p += copy(out.docs[p:], a.docs[a.offs[j]:a.offs[j+1]])
			j++
		default:
			key, od = o.keys[i], o.docs[o.offs[i]:o.offs[i+1]]
			p += len(m.mergeDocs(out.docs[p:p], od, a.docs[a.offs[j]:a.offs[j+1]]))
			i++
			j++
		}
		if p > start {
			out.keys[k] = key
			out.offs[k] = uint32(start)
			k++
		}
		if m.dfCap > 0 && (len(od) <= m.dfCap) != (p-start <= m.dfCap) {
			for _, q := range out.docs[start:p] {
				if d := PostingDoc(q); !m.addedSet.Has(d) {
					if m.flipped == nil {
						m.flipped = NewDocSet(int(max(o.maxDoc, a.maxDoc)))
					}
					m.flipped.Add(d)
				}
			}
		}
	}
	out.offs[k] = uint32(p)
}

// presentAfter is the set of documents with postings after an update:
// those of old not removed, and the added ones with chunks (an added
// document not removed keeps its old postings too). It costs a pass over
// the documents, not the postings.
func presentAfter(old, removed *DocSet, added []DocChunks) *DocSet {
	out := &DocSet{words: slices.Clone(old.words)}
	if removed != nil {
		for w := range min(len(out.words), len(removed.words)) {
			out.words[w] &^= removed.words[w]
		}
	}
	for _, x := range out.words {
		out.n += bits.OnesCount64(x)
	}
	for i := range added {
		if len(added[i].Chunks) > 0 {
			out.Add(added[i].Doc)
		}
	}
	return out
}

// lowerBound is the first index i with keys[i] >= x.
func lowerBound(keys []uint32, x uint32) int {
	a, b := 0, len(keys)
	for a < b {
		m := int(uint(a+b) >> 1)
		if keys[m] < x {
			a = m + 1
		} else {
			b = m
		}
	}
	return a
}
