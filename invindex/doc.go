// Package invindex turns text into chunk IDs and keeps the inverted index
// plagd's similarity counting runs on. It is pure: slices of integers in,
// slices of integers out, and files only through io.Reader and io.Writer.
// The daemon owns real files, PostgreSQL and the network.
//
// # Words
//
// Tokenizer.Words splits a text into words (runs of letters, numbers and
// marks) and hashes each word's normalised form: NFKC, full case folding,
// optionally without diacritics. The normal form also undoes the
// keystroke-level disguises that would otherwise hide a copy (package
// disguise reports them): an invisible character inside a word (zero-width
// space, soft hyphen, joiners, bidirectional controls) neither splits nor
// changes the word; a letter that looks like ASCII letters (Cyrillic "а",
// Greek "ο"; Unicode TR39 confusables) hashes as them (a capital whose
// look differs from its small letter's, Greek "Ν", as written when its word
// is Latin by its letters or its neighbours, so that genuine Greek words
// hash alike in both cases); and a letter-spaced
// word ("p l a g i a r i s m") is one word, a letter-spaced sentence whose
// words are as far apart as its letters ("t h e c a t") the English words
// an English lexicon finds in it (disguise.SpacedWords). Offsets always
// point into the
// text as written, so a disguised word's span includes its invisible
// characters or its spaces. HashVersion names this definition.
//
// # Chunks
//
// A chunk is a window of N consecutive normalised words (N = 5 by default,
// Params.WindowWords), every window of a document, overlapping. A chunk ID
// is a stable 64-bit hash of the window truncated to its top Params.ChunkBits
// bits, so the chunk-ID space is [0, 2^ChunkBits). The next 8 bits of the
// same hash are the chunk's fingerprint (WindowFingerprint). A document is
// reduced to the set of its distinct chunk IDs, each with one fingerprint,
// and its chunk count. Two documents share a chunk when they have the same
// chunk ID with the same fingerprint, that is the same (ChunkBits+8)-bit
// hash; they are similar in proportion to the chunks they share:
// sim(A→B) = shared(A,B)/chunks(A), chunks(A) being the number of distinct
// chunk IDs of A.
//
// Why the fingerprint: chunk IDs are narrow so that the range split and the
// per-chunk structures stay small, but at 28 bits an archive of 100k
// documents × 1,000 chunks (100M distinct windows) occupies about 31 % of
// all IDs, so on IDs alone every document shares one chunk by pure chance
// with some 300 unrelated documents. Requiring the fingerprint to agree
// divides such accidents by 256 (to one or two per document), so a single
// shared chunk is evidence again, without changing the chunk-ID space, the
// range split, or the 4 bytes per posting: the fingerprint rides in the low
// byte of each posting, next to a 24-bit DocID (MaxDocs).
//
// A document keeps each chunk ID once. If two of its windows have the same
// ID but different fingerprints (a collision inside the document: about one
// per 20,000-chunk thesis at 28 bits), the smallest fingerprint is kept, so
// the result is deterministic; it costs that document at most one shared
// chunk. The df of a chunk, and with it the df cap (engine.df_cap),
// counts every document posting on the chunk ID, whatever its fingerprint.
// Count applies a cap on one slice's df; an index of several parts (a base
// and a delta, package cluster) caps on their combined df instead: it keeps
// the set of its chunks over the cap as a KeySet (Slice.KeysOver finds the
// candidates) and counts a document without them (KeySet.Without).
//
// # Index shape
//
// The chunk-ID space is split into contiguous ranges (SplitRange), one per
// node process; a Slice is the index of one range. Seed 004 draws it as two
// arrays (its Figure 1): an offsets array indexed by chunk ID, pointing into
// a doc-ID array that holds, chunk after chunk, the sorted IDs of the
// documents containing it (plagd stores a Posting, doc<<8 | fingerprint,
// per entry, so sorted postings are sorted documents; the figures below
// show only the documents):
//
//	chunk ID:  0    1    2    3    4 ...          offsets[c]..offsets[c+1]
//	offsets:  [0,   0,   2,   3,   3, ...]        delimit chunk c's documents
//	doc IDs:  [4, 9, 7, ...]                      chunk 1 → {4, 9}, chunk 2 → {7}
//
// Indexed densely by chunk ID, the offsets array costs 4 B per possible chunk
// (1 GiB at 28 bits) whatever the archive's size, and most of it would say
// "no postings". plagd stores only chunk IDs that occur:
//
//	keys:    [1, 2, ...]          sorted chunk IDs with postings
//	offsets: [0, 2, 3, ...]       len(keys)+1; keys[i]'s documents are
//	doc IDs: [4, 9, 7, ...]       docs[offsets[i]:offsets[i+1]]
//
// plus a directory over the top bits of (chunk - lo), about one entry per
// eight keys, so a lookup is one directory load and a binary search over a
// handful of keys. On real corpora most chunks occur in one document only,
// so the index costs about 4 B (posting) + 8 B (key, offset) per posting at
// worst and less as chunks are shared. Two more structures are derived
// from the arrays whenever a slice is built, updated or read, never
// stored: the set of documents with postings, and a one-hash filter of the
// shared windows, chunk IDs with a fingerprint two postings or more carry
// (16 bits per such window), with which Count skips an indexed document's
// unshared chunks without a lookup. Keyed on the ID alone it would let
// through every chunk whose ID another window's hash collided into: a third
// of them at 100k documents, nearly all at 1M, where 1.09 billion postings
// fill the 2^28 IDs four times over.
//
// BuildSlice builds a slice by bucket sort: one pass counts the postings
// per bucket (a power-of-two run of chunk IDs, sized from the data so that
// its postings sort in the L2 cache); then, group by group of consecutive
// buckets, each document's chunks in the group are scattered into their
// bucket's region of a group-sized scratch (a cursor per document), and
// each bucket is radix-sorted and written out. A first round of groups only
// counts the distinct chunk IDs, so that the arrays are allocated once at
// their exact size. Update merges a slice with the postings of new and
// modified documents and drops those of removed ones, leaving the old slice
// intact until the run commits. Count walks posting lists to count, per
// other document, the chunks one document shares with it; TopK keeps the
// best candidates. DocTable maps the dense internal document IDs to
// PostgreSQL ids.
//
// Where two documents share text, rather than how much, is package
// passage's question: it aligns two texts on the same windows, keyed by
// Tokenizer.WindowKeys (chunk ID and fingerprint of every window, in text
// order, KeyChunk and KeyCheck taking a key apart), so that its passages
// and the index agree on what counts as shared.
//
// # Index file format
//
// A node caches its slice between runs in a slice file, and the master keeps
// the document table in a document-table file. Both are written once and
// never modified (the daemon writes them to a temporary name and renames).
// All integers are little-endian; arrays are packed, without padding.
//
// Every file starts with a header:
//
//	off  size  field
//	  0     8  magic: "plagdidx" (slice), "plagddoc" (document table) or
//	           "plagddlt" (delta)
//	  8     4  format version, currently 2
//	 12     4  Params.WindowWords
//	 16     4  Params.ChunkBits
//	 20     4  flags: bit 0 = Params.StripDiacritics; bits 8-15 =
//	           Params.ExtraWindowWords; other bits zero
//	 24     4  chunk hash version (HashVersion of the writer)
//	 28     8  generation (the run that produced the file), int64
//	 36     8  lo: first chunk ID of the range
//	 44     8  hi: end of the range, exclusive (may be 2^32)
//	 52     4  n: length of the instance name, at most 4096
//	 56     n  instance name (UTF-8): identifies the database the file
//	           belongs to
//	56+n    4  count1: slice: number of keys K; table: number of ids N;
//	           delta: number of documents D
//	60+n    4  count2: slice: number of postings P; table: live documents;
//	           delta: number of postings it adds
//	64+n    4  header checksum: CRC-32C (Castagnoli) of bytes [0, 64+n)
//
// A slice file's body follows:
//
//	4·K       keys: chunk IDs, strictly ascending, inside [lo, hi)
//	4·(K+1)   offsets: offsets[0] = 0, strictly ascending, offsets[K] = P
//	4·P       postings: doc<<8 | fingerprint; within postings[offsets[i]:
//	          offsets[i+1]] the docs (posting >> 8) strictly ascending
//
// and a document-table file's body:
//
//	8·N       external id of each DocID 0..N-1, int64; 0 marks a free id
//	4·N       chunk count of each DocID (0 for free ids)
//
// (N is at most MaxDocs = 2^24, the DocIDs a posting can hold.)
//
// A delta file (deltafile.go) holds what a node changed on top of its base
// slice since that base was written, so that a run's files cost what its
// change costs; its body:
//
//	8         generation of the base slice it applies to, int64
//	4         documents with postings in that base
//	4         T: number of tombstones, then 4·T: the DocIDs whose base
//	          postings are dead (deleted, modified or recycled), ascending
//	per document (D of them): 4 DocID, 4 chunk count c, 4·c chunk IDs,
//	          c fingerprint bytes
//
// Then, in all three, the trailer:
//
//	4         body checksum: CRC-32C of the body
//	8         "plagdend"
//
// For example, a slice over [0, 16) holding chunk 3 in documents 1
// (fingerprint 0xaa) and 5 (fingerprint 0x01) and chunk 9 in document 2
// (fingerprint 0), K = 2 and P = 3, has the body
//
//	03000000 09000000  00000000 02000000 03000000  aa010000 01050000 00020000
//
// The directory is not stored: the reader derives it from the keys.
//
// A reader checks, in this order, the magic (ErrNotIndex), the version
// (ErrVersion: a file from an older or newer plagd is refused with a clear
// message, never misread), the header checksum (ErrChecksum) before it
// trusts the counts enough to allocate, the body checksum, the trailer, and
// finally every invariant above (ErrCorrupt). A file that ends early gives
// ErrTruncated. An index file is derived data: whatever the error, the cure
// is a full run, which rebuilds it from PostgreSQL.
//
// Version history:
//
//	1  first format
//	2  postings carry the chunk fingerprint (doc<<8 | fingerprint, was the
//	   doc ID), DocIDs below 2^24; written with HashVersion 2. Version 1
//	   files are refused with ErrVersion and rebuilt by a full run.
package invindex
