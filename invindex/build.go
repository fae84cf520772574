package invindex

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/plagd/plagd/internal/hugepage"
)

// Bucket sizing. A bucket is a contiguous run of chunk IDs (a power of two
// wide) whose postings are sorted together; its width is chosen from the
// data so that a bucket holds at most about bucketPostings postings and,
// when that leaves at least minBucketPostings, at most 16 bits of chunk ID
// to sort on (two radix passes). Buckets are processed in groups of
// consecutive buckets: a group's postings are scattered into one scratch
// buffer, partitioned by bucket. A group holds about cacheGroup postings
// (1 MiB of scratch, so that the scatter's writes stay in the L2 cache),
// but there are at least groupsPerBuild groups (the scratch costs at most
// 0.5 B per posting) and, beyond those, fewer than one group per
// visitPostings postings of the average document (each group visits every
// document once).
// Inside a bucket a radix sort with 8-bit digits (256 destinations: every
// pass streams through the cache) orders the postings.
const (
	bucketPostings    = 1 << 15 // at most, per bucket (256 KiB packed)
	minBucketPostings = 1 << 11 // narrower buckets only down to this
	groupsPerBuild    = 16      // at least
	cacheGroup        = 1 << 17 // postings per group, if documents are few
	visitPostings     = 32      // postings per document visit, at least
	minGroup          = 1 << 17 // postings; smaller builds use one group
	radixBits         = 8
	smallSort         = 64       // below this, slices.Sort beats radix passes
	cacheSort         = 64 << 10 // postings (512 KiB) sorted by LSD passes alone
)

// BuildSlice builds the slice over [lo, hi) from scratch by bucket sort.
// docs may come in any doc order; each doc's Chunks must be sorted, distinct
// and inside [lo, hi), with one fingerprint per chunk in Checks; each DocID
// may appear once and must be below MaxDocs. Violations are bugs of the
// caller and panic.
//
// Memory is the point of the design (memory, not CPU, bounds
// one machine). The finished index is allocated once at its exact size,
// and the only other memory is a scratch buffer for one group of buckets
// (8 B per posting of the group: 1 MiB, and at most 0.5 B per posting of
// the build), 4 B per document, the per-bucket counts and one bucket's sort
// scratch. No array of packed (chunk, doc) pairs is ever built for the
// whole slice.
//
// The input is read in passes, each a sequential sweep over the documents:
// the first counts the postings per bucket (and checks the input); then,
// group by group, each document's chunks that fall in the group are
// scattered to their bucket's region of the scratch (a cursor per document
// remembers where the previous group stopped). The first round of groups
// only counts the distinct chunk IDs, with a bitmap over the group's (or
// each bucket's) chunk IDs, so that keys and offsets are allocated at their
// exact size; the second radix-sorts each bucket and writes it out. The
// cost is linear in the postings plus documents × groups sequential visits
// (at most one per 32 postings, beyond the 16 groups every build above
// 128K postings has), so many short documents cost about as much per
// posting as few long ones.
func BuildSlice(lo, hi uint64, docs []DocChunks) *Slice {
	return BuildSliceStop(lo, hi, docs, nil)
}

// BuildSliceStop is BuildSlice for a caller that may need the build to end
// early (a run being cancelled): stop is asked between groups of buckets,
// every few hundred thousand postings, and once it reports true the build
// gives up and returns nil. A nil stop never stops.
func BuildSliceStop(lo, hi uint64, docs []DocChunks, stop func() bool) *Slice {
	checkRange(lo, hi)
	var total uint64
	for i := range docs {
		if len(docs[i].Checks) != len(docs[i].Chunks) {
			panic(fmt.Sprintf("invindex: doc %d has %d chunks but %d fingerprints", docs[i].Doc, len(docs[i].Chunks), len(docs[i].Checks)))
		}
		total += uint64(len(docs[i].Chunks))
	}
	if total == 0 {
		return NewSlice(lo, hi)
	}
	if total > math.MaxUint32 {
		panic(fmt.Sprintf("invindex: %d postings exceed the 2^32-1 a slice can hold; use more slices", total))
	}
	if len(docs) > math.MaxInt32 {
		panic("invindex: more than 2^31-1 documents in one build")
	}
	b := newBucketer(lo, hi, docs, total)
	b.stop = stop
	nk := b.run(nil)
	if nk < 0 {
		return nil
	}
	s := &Slice{
		lo:   lo,
		hi:   hi,
		keys: hugepage.Make[uint32](nk),
		offs: hugepage.Make[uint32](nk + 1),
		docs: hugepage.Make[Posting](int(total)),
	}
	if b.run(s) < 0 {
		return nil
	}
	present := NewDocSet(int(b.maxDoc))
	for i := range docs {
		if len(docs[i].Chunks) > 0 {
			present.Add(docs[i].Doc)
		}
	}
	s.finishWith(present)
	return s
}

// bucketer holds the bucket geometry, the per-bucket posting counts and
// the scratch of a build.
type bucketer struct {
	lo    uint64
	shift uint // bucket of chunk c is (c-lo)>>shift
	nb    int
	docs  []DocChunks

	count  []uint32 // postings per bucket
	groups []int    // group g is buckets [groups[g], groups[g+1])
	pos    []uint32 // per doc: first chunk not yet scattered
	wpos   []uint32 // per bucket of the current group: next scratch slot

	maxDoc   uint64
	scratch  []uint64 // one group's packed postings: (chunk-bucket base)<<32 | posting
	tmp      []uint64 // one bucket's sort scratch
	bitmap   []uint64 // one bucket's distinct-chunk bitmap (counting round), if worth it
	maxGroup int

	stop func() bool // asked once per group; true: give up (nil: never)
}

// newBucketer checks the input, chooses the geometry and counts the
// postings per bucket: one sequential pass over every chunk.
func newBucketer(lo, hi uint64, docs []DocChunks, total uint64) *bucketer {
	wb := widthBits(lo, hi)
	var bb uint // 2^bb buckets
	for bb < wb && total>>bb > bucketPostings {
		bb++
	}
	// Narrower buckets while they keep a couple of thousand postings, so
	// that their sort needs two radix passes, not three.
	for bb < wb && wb-bb > 2*radixBits && total>>(bb+1) >= minBucketPostings {
		bb++
	}
	shift := wb - bb
	nb := int((hi-lo-1)>>shift) + 1
	b := &bucketer{lo: lo, shift: shift, nb: nb, docs: docs, count: make([]uint32, nb)}
	count := b.count
	for i := range docs {
		ch := docs[i].Chunks
		if len(ch) == 0 {
			continue
		}
		if docs[i].Doc >= MaxDocs {
			panic(fmt.Sprintf("invindex: DocID %d is not below MaxDocs (%d)", docs[i].Doc, MaxDocs))
		}
		if uint64(ch[0]) < lo || uint64(ch[len(ch)-1]) >= hi {
			panic(fmt.Sprintf("invindex: doc %d has chunks outside [%d, %d)", docs[i].Doc, lo, hi))
		}
		b.maxDoc = max(b.maxDoc, uint64(docs[i].Doc)+1)
		prev := ch[0]
		count[(uint64(prev)-lo)>>shift]++
		for _, c := range ch[1:] {
			if c <= prev {
				panic(fmt.Sprintf("invindex: chunks of doc %d are not sorted and distinct", docs[i].Doc))
			}
			prev = c
			count[(uint64(c)-lo)>>shift]++
		}
	}
	// Groups: runs of consecutive buckets of at most limit postings (a
	// bigger bucket is a group of its own). A group is cache-sized
	// (cacheGroup postings, 1 MiB of scratch) unless that means visiting
	// each document more than once per visitPostings of its postings (a
	// visit reads the document's next chunks, a cache miss when the
	// document is long: at 100M postings in 100k documents, 250 groups
	// spent more on visits than on sorting); there are at least
	// groupsPerBuild groups (in builds above minGroup postings).
	ndocs := uint64(0)
	for i := range docs {
		if len(docs[i].Chunks) > 0 {
			ndocs++
		}
	}
	groups := max(min(total/cacheGroup, total/(visitPostings*ndocs)), groupsPerBuild)
	limit := max(total/groups, minGroup)
	b.groups = append(b.groups, 0)
	largest, sum := 0, uint64(0)
	for bk, n := range count {
		if sum > 0 && sum+uint64(n) > limit {
			b.groups = append(b.groups, bk)
			b.maxGroup = max(b.maxGroup, int(sum))
			sum = 0
		}
		sum += uint64(n)
		largest = max(largest, int(n))
	}
	b.groups = append(b.groups, nb)
	b.maxGroup = max(b.maxGroup, int(sum))
	maxBuckets := 0
	for g := 1; g < len(b.groups); g++ {
		maxBuckets = max(maxBuckets, b.groups[g]-b.groups[g-1])
	}
	b.wpos = make([]uint32, maxBuckets)
	if len(b.groups) > 2 {
		b.pos = make([]uint32, len(docs))
	}
	b.scratch = make([]uint64, b.maxGroup)
	b.tmp = make([]uint64, largest)
	// A bucket's bitmap costs 2^shift bits to clear and count, well under
	// a nanosecond per word; a radix sort a few nanoseconds per posting
	// and pass. Buckets with fewer postings than 1/16 of the bitmap's words
	// (tiny builds over a wide range) are counted by sorting; the bitmap
	// is never bigger than the scratch.
	if words := uint64(1)<<shift/64 + 1; words <= 16*uint64(largest) && words <= uint64(len(b.scratch)) {
		b.bitmap = make([]uint64, words)
	}
	return b
}

// run makes one round over all groups: with s == nil it returns the number
// of distinct chunk IDs; otherwise it fills s, whose arrays the counting
// round sized exactly. It returns -1 when stop asked it to give up.
func (b *bucketer) run(s *Slice) int {
	clear(b.pos)
	nk, k, p := 0, 0, 0
	for g := 1; g < len(b.groups); g++ {
		if b.stop != nil && b.stop() {
			return -1
		}
		b0, b1 := b.groups[g-1], b.groups[g]
		if s == nil {
			if n, ok := b.countBits(b0, b1); ok {
				nk += n
				continue
			}
		}
		b.scatter(b0, b1)
		start := 0
		for bk := b0; bk < b1; bk++ {
			n := int(b.count[bk])
			if n == 0 {
				continue
			}
			a := b.scratch[start : start+n]
			start += n
			if s == nil {
				nk += b.distinct(a)
			} else {
				k, p = b.emit(s, bk, b.sortBucket(a), k, p)
			}
		}
	}
	if s != nil {
		s.offs[k] = uint32(p)
	}
	return nk
}

// scatter writes the postings of buckets [b0, b1) into the scratch, each
// bucket's in its own region in input order, packed as (chunk - bucket
// base)<<32 | posting. Each document's cursor moves past the group.
func (b *bucketer) scatter(b0, b1 int) {
	wpos := b.wpos[:b1-b0]
	off := uint32(0)
	for bk := b0; bk < b1; bk++ {
		wpos[bk-b0] = off
		off += b.count[bk]
	}
	lo, shift := b.lo, b.shift
	mask := uint64(1)<<shift - 1
	end := lo + uint64(b1)<<shift // may pass hi; chunks are below hi
	first := uint64(b0)
	out := b.scratch
	whole := b.pos == nil // one group: every chunk of every doc
	for i := range b.docs {
		d := &b.docs[i]
		ch, fp := d.Chunks, d.Checks
		c := 0
		if !whole {
			c = int(b.pos[i])
		}
		if c >= len(ch) {
			continue
		}
		fp = fp[:len(ch)]
		doc := uint64(d.Doc) << 8
		for ; c < len(ch) && uint64(ch[c]) < end; c++ {
			x := uint64(ch[c]) - lo
			w := &wpos[x>>shift-first]
			out[*w] = (x&mask)<<32 | doc | uint64(fp[c])
			*w++
		}
		if !whole {
			b.pos[i] = uint32(c)
		}
	}
}

// countBits counts the distinct chunks of buckets [b0, b1) with a bitmap
// over their chunk IDs, borrowing the scratch's memory, in one sweep over
// the documents; ok is false if the bitmap would not fit the scratch.
func (b *bucketer) countBits(b0, b1 int) (n int, ok bool) {
	words := (uint64(b1-b0)<<b.shift + 63) / 64
	if words > uint64(len(b.scratch)) {
		return 0, false
	}
	bitmap := b.scratch[:words]
	clear(bitmap)
	base := b.lo + uint64(b0)<<b.shift
	end := b.lo + uint64(b1)<<b.shift
	whole := b.pos == nil
	for i := range b.docs {
		ch := b.docs[i].Chunks
		c := 0
		if !whole {
			c = int(b.pos[i])
		}
		for ; c < len(ch) && uint64(ch[c]) < end; c++ {
			x := uint64(ch[c]) - base
			bitmap[x>>6] |= 1 << (x & 63)
		}
		if !whole {
			b.pos[i] = uint32(c)
		}
	}
	for _, w := range bitmap {
		n += bits.OnesCount64(w)
	}
	return n, true
}

// distinct counts the distinct chunks of one bucket's packed postings.
func (b *bucketer) distinct(a []uint64) int {
	if len(a) < smallSort || len(b.bitmap) == 0 || len(b.bitmap) > 16*len(a) {
		ps := b.sortBucket(a)
		n := 0
		for i, p := range ps {
			if i == 0 || p>>32 != ps[i-1]>>32 {
				n++
			}
		}
		return n
	}
	bitmap := b.bitmap
	clear(bitmap)
	for _, p := range a {
		x := p >> 32
		bitmap[x>>6] |= 1 << (x & 63)
	}
	n := 0
	for _, w := range bitmap {
		n += bits.OnesCount64(w)
	}
	return n
}

// emit writes one bucket's sorted postings into s from key k and posting
// p, and returns the next k and p. It is branch-free (run boundaries are
// unpredictable: most chunks have df 1, some many): every posting writes
// its run's key and start, and k advances at each new chunk. A chunk whose
// documents are out of doc order sends the bucket to emitSlow.
func (b *bucketer) emit(s *Slice, bk int, ps []uint64, k, p int) (int, int) {
	if len(ps) == 0 {
		return k, p
	}
	base := uint32(b.lo + uint64(bk)<<b.shift)
	keys, offs, docs := s.keys, s.offs, s.docs[:p+len(ps)]
	k0, p0 := k, p
	prev := ps[0] ^ 1<<32 // another chunk
	start, bad := uint64(p), uint64(0)
	for _, v := range ps {
		same := ((v^prev)>>32 - 1) >> 63 // 1 if the chunk is prev's
		// A doc not above prev's doc on the same chunk: out of order.
		bad |= same & uint64((int64(v>>8&0xffffff)-int64(prev>>8&0xffffff)-1)>>63)
		k += int(1 - same)
		start += (uint64(p) - start) * (1 - same)
		keys[k-1] = base + uint32(v>>32)
		offs[k-1] = uint32(start)
		docs[p] = uint32(v)
		p++
		prev = v
	}
	if bad != 0 {
		return b.emitSlow(s, bk, ps, k0, p0)
	}
	return k, p
}

// emitSlow is emit for a bucket with chunks whose documents came out of
// doc order: the scatter visits docs in input order, which need not be doc
// order, so each such chunk's run is sorted here (and a doc found twice
// is refused).
func (b *bucketer) emitSlow(s *Slice, bk int, ps []uint64, k, p int) (int, int) {
	base := uint32(b.lo + uint64(bk)<<b.shift)
	for i := 0; i < len(ps); {
		x := ps[i] >> 32
		j, sorted := i+1, true
		for ; j < len(ps) && ps[j]>>32 == x; j++ {
			sorted = sorted && ps[j]>>8 > ps[j-1]>>8 // by doc: a doc twice is unsorted
		}
		if !sorted {
			run := ps[i:j]
			slices.Sort(run)
			for q := 1; q < len(run); q++ {
				if PostingDoc(uint32(run[q])) == PostingDoc(uint32(run[q-1])) {
					panic(fmt.Sprintf("invindex: doc %d appears twice in one build", PostingDoc(uint32(run[q]))))
				}
			}
		}
		s.keys[k] = base + uint32(x)
		s.offs[k] = uint32(p)
		k++
		for _, v := range ps[i:j] {
			s.docs[p] = uint32(v)
			p++
		}
		i = j
	}
	return k, p
}

// sortBucket sorts packed postings by chunk, stably (the doc bits ride
// along). A bucket that fits the L2 cache is sorted by LSD passes; a larger
// one is first split MSD on its top chunk bits into parts of about 4K
// postings, and each part is finished in the L1 cache by LSD passes on the
// remaining bits. Small inputs use slices.Sort, which orders by chunk then
// doc directly.
func (b *bucketer) sortBucket(a []uint64) []uint64 {
	if len(a) < smallSort {
		slices.Sort(a)
		return a
	}
	tmp := b.tmp[:len(a)]
	if len(a) <= cacheSort || b.shift <= radixBits {
		if lsd(a, tmp, 0, b.shift) {
			return tmp
		}
		return a
	}
	// Split into parts of about 4K postings (32 KiB, L1-sized).
	top := min(uint(bits.Len(uint(len(a)>>12))), radixBits, b.shift)
	low := b.shift - top
	var cnt [1<<radixBits + 1]int
	for _, v := range a {
		cnt[(v>>(32+low))+1]++
	}
	for i := 1; i <= 1<<top; i++ {
		cnt[i] += cnt[i-1]
	}
	pos := cnt
	for _, v := range a {
		d := v >> (32 + low)
		tmp[pos[d]] = v
		pos[d]++
	}
	for d := range 1 << top {
		x, y := tmp[cnt[d]:cnt[d+1]], a[cnt[d]:cnt[d+1]]
		if len(x) < smallSort {
			slices.Sort(x)
		} else if lsd(x, y, 0, low) {
			copy(x, y)
		}
	}
	return tmp
}

// lsd sorts x stably by the chunk bits [from, to) (counted from bit 32),
// using y as scratch. It reports whether the result ended up in y.
func lsd(x, y []uint64, from, to uint) bool {
	if to <= from {
		return false
	}
	passes := (to - from + radixBits - 1) / radixBits
	db := (to - from + passes - 1) / passes
	mask := uint64(1)<<db - 1
	var cnt [1 << radixBits]int
	swapped := false
	for pass := uint(0); pass < passes; pass++ {
		sh := 32 + from + pass*db
		c := cnt[:1<<db]
		clear(c)
		for _, v := range x {
			c[(v>>sh)&mask]++
		}
		sum := 0
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		for _, v := range x {
			d := (v >> sh) & mask
			y[c[d]] = v
			c[d]++
		}
		x, y = y, x
		swapped = !swapped
	}
	return swapped
}
