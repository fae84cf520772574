package invindex

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Bucket sizing. A bucket is a contiguous run of chunk IDs whose postings are
// gathered from the input and sorted together. Visiting a document costs a
// cache miss or two whatever it contributes, so buckets are few (about 64)
// and each visit yields many postings; a bucket is at most 2^22 chunk IDs
// wide so the bitmap that counts its distinct keys is 512 KiB and stays in
// the L2 cache. Inside a bucket a radix sort with 8-bit digits (256
// destinations: every pass streams through the cache) orders the postings.
const (
	maxBuckets    = 64
	minBucket     = 1 << 16 // postings; below this, fewer buckets
	maxBucketBits = 22
	radixBits     = 8
	smallSort     = 64       // below this, slices.Sort beats radix passes
	cacheSort     = 64 << 10 // postings (512 KiB) sorted by LSD passes alone
)

// BuildSlice builds the slice over [lo, hi) from scratch by bucket sort.
// docs may come in any doc order; each doc's Chunks must be sorted, distinct
// and inside [lo, hi), with one fingerprint per chunk in Checks; each DocID
// may appear once and must be below MaxDocs. Violations are bugs of the
// caller and panic.
//
// Memory is the point of the design (DESIGN.md §5: memory, not CPU, bounds
// one machine). No array of packed (chunk, doc) pairs is ever built for the
// whole slice: postings are gathered bucket by bucket straight from the
// input, each doc keeping a cursor into its own sorted chunks. A first pass
// counts the distinct chunk IDs so that keys, offsets and docs are allocated
// once at their exact size; the second pass gathers again, radix-sorts each
// bucket and writes the result in place. Peak extra memory is the finished
// index plus about 16 B per document and one bucket's scratch.
func BuildSlice(lo, hi uint64, docs []DocChunks) *Slice {
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
	postings := make([]Posting, total)
	nk := b.countKeys(postings)
	s := &Slice{
		lo:   lo,
		hi:   hi,
		keys: make([]uint32, nk),
		offs: make([]uint32, nk+1),
		docs: postings,
	}
	b.fill(s)
	s.finish()
	return s
}

// bucketer walks the input bucket by bucket. Each doc sits in the FIFO list
// of the bucket holding its next unread chunk, so a bucket's gather touches
// only docs that have postings in it: the cost is O(postings + docs ×
// buckets touched), and a doc's state is one 40-byte record.
type bucketer struct {
	lo    uint64
	shift uint // bucket of chunk c is (c-lo)>>shift
	nb    int
	docs  []DocChunks

	cursors    []docCursor
	head, tail []int32 // per bucket: first and last cursor, -1 if empty

	maxDoc   uint64
	buf, tmp []uint64 // one bucket's packed postings: (chunk-base)<<32 | posting
}

type docCursor struct {
	chunks []uint32 // the doc's chunks not yet gathered
	checks []uint8  // their fingerprints
	doc    DocID
	next   int32 // next cursor in the same bucket list
}

func newBucketer(lo, hi uint64, docs []DocChunks, total uint64) *bucketer {
	wb := widthBits(lo, hi)
	var bb uint // 2^bb buckets
	for bb < wb && 1<<bb < maxBuckets && total>>bb > minBucket {
		bb++
	}
	shift := min(wb-bb, maxBucketBits)
	nb := int((hi-lo-1)>>shift) + 1
	b := &bucketer{
		lo:    lo,
		shift: shift,
		nb:    nb,
		head:  make([]int32, nb),
		tail:  make([]int32, nb),
	}
	n := 0
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
		n++
	}
	b.cursors = make([]docCursor, 0, n)
	for i := range docs {
		if len(docs[i].Chunks) > 0 {
			b.cursors = append(b.cursors, docCursor{doc: docs[i].Doc})
		}
	}
	b.docs = docs
	return b
}

// reset puts every doc back at its first chunk.
func (b *bucketer) reset() {
	for i := range b.head {
		b.head[i] = -1
	}
	j := 0
	for i := range b.docs {
		if ch := b.docs[i].Chunks; len(ch) > 0 {
			b.cursors[j].chunks = ch
			b.cursors[j].checks = b.docs[i].Checks
			b.push(int32(j), b.bucketOf(ch[0]))
			j++
		}
	}
}

func (b *bucketer) bucketOf(c uint32) int { return int((uint64(c) - b.lo) >> b.shift) }

func (b *bucketer) push(i int32, bk int) {
	b.cursors[i].next = -1
	if b.head[bk] < 0 {
		b.head[bk] = i
	} else {
		b.cursors[b.tail[bk]].next = i
	}
	b.tail[bk] = i
}

// gather returns bucket bk's postings packed as (chunk-base)<<32 | posting,
// in list order, and moves each doc on to the bucket of its next chunk.
func (b *bucketer) gather(bk int) []uint64 {
	out := b.buf[:0]
	base := b.lo + uint64(bk)<<b.shift
	limit := base + 1<<b.shift
	for i := b.head[bk]; i >= 0; {
		d := &b.cursors[i]
		nx := d.next
		ch, fp, doc := d.chunks, d.checks, uint64(d.doc)<<8
		fp = fp[:len(ch)]
		c := 0
		prev := int64(-1)
		for ; c < len(ch) && uint64(ch[c]) < limit; c++ {
			if int64(ch[c]) <= prev {
				panic(fmt.Sprintf("invindex: chunks of doc %d are not sorted and distinct", d.doc))
			}
			prev = int64(ch[c])
			out = append(out, (uint64(ch[c])-base)<<32|doc|uint64(fp[c]))
		}
		d.chunks, d.checks = ch[c:], fp[c:]
		if c < len(ch) {
			b.push(i, b.bucketOf(ch[c]))
		}
		i = nx
	}
	b.head[bk] = -1
	b.buf = out
	return out
}

// countKeys is the first pass: the number of distinct chunk IDs, counted
// per bucket with a bitmap over the bucket's width. The bitmap borrows the
// memory of the doc-ID array (exact size, not yet written) when it fits, so
// the pass allocates nothing; tiny builds over a wide range sort instead. It
// also records the largest bucket, to size the sort scratch exactly once.
func (b *bucketer) countKeys(scratch []uint32) int {
	b.reset()
	words := (1<<b.shift + 31) / 32
	useBitmap := words <= len(scratch)
	n, largest := 0, 0
	for bk := 0; bk < b.nb; bk++ {
		if b.head[bk] < 0 {
			continue
		}
		if !useBitmap {
			ps := slices.Clone(b.gather(bk))
			slices.Sort(ps)
			largest = max(largest, len(ps))
			for i, p := range ps {
				if i == 0 || p>>32 != ps[i-1]>>32 {
					n++
				}
			}
			continue
		}
		bitmap := scratch[:words]
		clear(bitmap)
		size := 0
		base := b.lo + uint64(bk)<<b.shift
		limit := base + 1<<b.shift
		for i := b.head[bk]; i >= 0; {
			d := &b.cursors[i]
			nx := d.next
			ch := d.chunks
			c := 0
			for ; c < len(ch) && uint64(ch[c]) < limit; c++ {
				x := uint64(ch[c]) - base
				if x >= limit-base { // below base: an earlier bucket's chunk
					panic(fmt.Sprintf("invindex: chunks of doc %d are not sorted and distinct", d.doc))
				}
				w, m := x>>5, uint32(1)<<(x&31)
				if bitmap[w]&m == 0 {
					bitmap[w] |= m
					n++
				}
			}
			size += c
			d.chunks, d.checks = ch[c:], d.checks[c:]
			if c < len(ch) {
				b.push(i, b.bucketOf(ch[c]))
			}
			i = nx
		}
		b.head[bk] = -1
		largest = max(largest, size)
	}
	b.buf = make([]uint64, 0, largest)
	b.tmp = make([]uint64, 0, largest)
	return n
}

// fill is the second pass: gather, sort and emit each bucket into s, whose
// arrays countKeys sized exactly.
func (b *bucketer) fill(s *Slice) {
	b.reset()
	k, p := 0, 0
	for bk := 0; bk < b.nb; bk++ {
		if b.head[bk] < 0 {
			continue
		}
		ps := b.sortBucket(b.gather(bk))
		base := uint32(b.lo + uint64(bk)<<b.shift)
		for i := 0; i < len(ps); {
			x := ps[i] >> 32
			j, sorted := i+1, true
			for ; j < len(ps) && ps[j]>>32 == x; j++ {
				sorted = sorted && ps[j]>>8 > ps[j-1]>>8 // by doc: a doc twice is unsorted
			}
			if !sorted {
				// The gather visits docs in list order, which is doc order
				// only within one source bucket; a chunk whose docs came
				// from several is put right here. Usually a no-op.
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
	}
	s.offs[k] = uint32(p)
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
			a, tmp = tmp, a
		}
		b.buf, b.tmp = a[:0], tmp[:0] // keep both for the next bucket
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
	b.buf, b.tmp = tmp[:0], a[:0]
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
