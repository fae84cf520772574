package cluster

import (
	"context"

	"github.com/plagd/plagd/invindex"
)

// Node is the worker role of a run. Calls for one run come in this order:
// Begin, any number of Chunk and Deliver (concurrently across nodes, but
// sequentially per node), Build, any number of Count, then Commit or Abort.
type Node interface {
	// Range is the node's chunk-ID range [lo, hi).
	Range() (lo, hi uint64)
	// Begin opens a run on top of the committed generation base. removed lists the
	// internal IDs whose postings leave the index (deleted, modified or failed
	// documents). A node whose committed generation is not base answers ErrStale.
	Begin(ctx context.Context, spec RunSpec, removed []invindex.DocID) error
	// Chunk tokenises a batch of texts into sorted distinct chunk IDs with their
	// fingerprints. Any node may chunk any document; the master routes the output
	// by range.
	Chunk(ctx context.Context, batch []Text) ([]Chunked, error)
	// Deliver hands the node the chunk lists (with fingerprints) of documents
	// restricted to its range.
	// With index set they become postings of the new slice; without, they are only
	// kept for counting (unchanged documents whose lists are recomputed).
	Deliver(ctx context.Context, docs []invindex.DocChunks, index bool) error
	// Build merges the committed slice, minus the removed documents, with the
	// delivered postings into the pending slice. With a df cap it returns the
	// unchanged documents posting on chunks that crossed the cap, whose lists
	// must then be recomputed too.
	Build(ctx context.Context) (BuildStats, error)
	// Count returns, for each document in docs (all delivered before), its partial
	// shared-chunk counts within this node's range against the pending slice,
	// sorted by other document. A document is counted once per run: Count
	// releases the chunk lists it counted (the run's largest transient
	// memory after the index), and counting one again needs it delivered again.
	Count(ctx context.Context, docs []invindex.DocID) ([][]invindex.Pair, error)
	// Commit makes the pending slice current as generation gen.
	Commit(ctx context.Context, gen int64) error
	// Abort discards everything since Begin; the committed slice stays.
	Abort(ctx context.Context) error
	// Snapshot returns the committed state and its generation (for persistence).
	Snapshot() (*NodeState, int64)
	// Install replaces the committed state (loading a persisted index).
	Install(st *NodeState, gen int64) error
}

// RunSpec is what every node must agree on for one run.
type RunSpec struct {
	Run    int64 // the run's ID; becomes the generation on commit
	Base   int64 // the generation the run builds on (0: empty index)
	Params invindex.Params
	DFCap  int
	Full   bool // a full run starts from an empty slice
}

// Text is one document's text handed to a node for chunking.
type Text struct {
	Doc  invindex.DocID
	Text string
}

// Chunked is a document's chunking result.
type Chunked struct {
	Doc    invindex.DocID
	Words  int
	Chunks []uint32 // distinct, ascending
	Checks []uint8  // Checks[i] is the fingerprint of Chunks[i]
}

// BuildStats reports a node's index build.
type BuildStats struct {
	Postings int
	Keys     int
	Bytes    int
	Flipped  []invindex.DocID // unchanged docs on chunks that crossed the df cap
}
