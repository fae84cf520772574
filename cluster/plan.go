package cluster

import (
	"context"
	"slices"

	"github.com/plagd/plagd/invindex"
)

// Plan is what one run must do, decided by the daemon from the change log.
// All document IDs here are external (documents.id in PostgreSQL).
type Plan struct {
	Run  int64 // the run's ID; the new index generation on commit
	Full bool  // start from an empty index and recompute everything
	// Upsert are documents added or modified (all live documents in a full run):
	// their current text is chunked and indexed.
	Upsert []int64
	// Delete are documents that left the archive (soft- or hard-deleted).
	Delete []int64
	// Holes are unchanged documents whose stored top-k list lost an entry while
	// full: their list is recomputed from their stored text, never left with a hole.
	// Which documents they are is defined by the function Holes.
	Holes []int64

	Params    invindex.Params
	DFCap     int // chunks in more documents are not counted; 0 = off
	MinShared int // a pair needs at least this many shared chunks
	TopK      int // rows kept per document
	BatchSize int // documents per dispatched batch
}

// Holes is the rule that decides Plan.Holes: the unchanged live documents
// whose stored list may have lost an entry while it was full. A list loses
// entries two ways before a run: its rows to documents that changed are
// about to be replaced (the new row may not come back, and whatever should
// move up into its place was never stored), and rows to hard-deleted
// documents went by cascade (lost counts them per list). A list that held
// fewer than topK rows before the loss held every pair of at least
// MinShared chunks, so the run can patch it with the new rows; a list that
// was full (its rows now, plus those lost, reach topK) is recomputed from
// its document's stored text.
//
// lists are the stored similarity lists by document at the start of the run
// (what survived the cascade), changed the documents the change log names
// (inserted, updated or deleted), lost the rows each list lost by cascade,
// live whether a document is in the archive (not deleted). The result is
// ascending.
//
// This function is the definition, and the SQL that plans real runs is
// derived from it: the run planner (func holes, beside the code that reads
// the change log) asks one query over the similarities table, because the
// lists are there and loading all of them to plan a run would cost more
// than the run. Its test TestIncrementalHolesQueryIsTheRule checks that
// query against this function on random archives. The rule is kept in Go
// because the cluster tests run it without a database: clustertest.Archive
// plans with it, and every incremental run there is compared with a
// brute-force recomputation, which is what shows the rule sufficient.
func Holes(lists map[int64][]Row, changed map[int64]bool, lost map[int64]int, live func(id int64) bool, topK int) []int64 {
	affected := make(map[int64]int, len(lost)) // document → rows lost by cascade
	for doc, n := range lost {
		affected[doc] += n
	}
	for doc, list := range lists {
		for _, r := range list {
			if _, ok := affected[doc]; !ok && changed[r.Other] {
				affected[doc] = 0 // lost no row yet, but its row to a changed document is replaced
			}
		}
	}
	var out []int64
	for doc, n := range affected {
		if live(doc) && !changed[doc] && len(lists[doc])+n >= topK {
			out = append(out, doc)
		}
	}
	slices.Sort(out)
	return out
}

// SourceText is one document's text as a TextSource delivers it.
type SourceText struct {
	ID         int64
	Text       string
	Failed     string // non-empty: the text could not be had; the human reason
	FailedKind string // a stable code for Failed (extract.Kind names, "too_short")
	Gone       bool   // the document no longer exists or is deleted
	// Skip, when set, rejects chunks the document must not be indexed with:
	// those of the registered templates that apply to it. The master drops
	// them after chunking, the same for fresh and stored texts.
	Skip func(chunk uint32, check uint8) bool
}

// TextSource supplies texts to a run. The daemon implements it over PostgreSQL
// (extracting files as needed); tests implement it over a map. Its methods are
// called concurrently, one call per batch in flight.
type TextSource interface {
	// Fresh returns the current texts of documents to (re)index, in the order asked.
	Fresh(ctx context.Context, ids []int64) ([]SourceText, error)
	// Stored returns the texts that were chunked when the documents were last
	// indexed, for unchanged documents whose lists are recomputed.
	Stored(ctx context.Context, ids []int64) ([]SourceText, error)
}

// Row is one similarity row: doc → other, asymmetric.
type Row struct {
	Doc, Other int64
	Shared     uint32
	Similarity float64 // Shared / chunks(Doc)
}

// DocResult is what a run did with one document it tried to index.
type DocResult struct {
	ID         int64
	Words      int
	Chunks     int
	Failed     string // empty when indexed
	FailedKind string
}

// Outcome is the result of a run, ready to be committed by the daemon.
type Outcome struct {
	Rows []Row
	// Replace are documents whose rows are replaced wholesale (rows with doc_id in it).
	Replace []int64
	// Others are documents whose incoming rows are removed (rows with other_id in it).
	Others []int64
	// Trim are unchanged documents that received new rows: each keeps its top-k.
	Trim []int64
	// Docs reports every document the run tried to index.
	Docs []DocResult
	// Deleted are documents removed from the index.
	Deleted []int64
	// Recomputed counts documents whose lists were recomputed in full.
	Recomputed int
	Postings   int
	IndexBytes int
}

// Failed counts the documents the run could not index.
func (o *Outcome) Failed() int {
	n := 0
	for _, d := range o.Docs {
		if d.Failed != "" {
			n++
		}
	}
	return n
}
