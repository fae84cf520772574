package bench

import (
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/synth"
)

// Options say what to measure and on which corpus.
type Options struct {
	Docs        int // documents in the archive
	WordsPerDoc int // mean words per document
	Seed        uint64
	// Nodes is the node count of the engine (0: engine.nodes from Config,
	// i.e. the number of CPUs). The build is also measured at this count.
	Nodes int
	// Changes is the size of the incremental run's change: modified, added
	// and deleted documents in the proportions of ChangeMix.
	Changes int
	// CopyRows is the size of the COPY probe into similarities (0: skip).
	CopyRows int
	// SkipDB measures only what needs no database (chunking, build).
	SkipDB bool
	// SkipBuild leaves out the chunking and build measurements, which hold
	// every document's chunks and a whole index in memory at once (about
	// 17 B per posting beside the runs'): for archives whose runs are what
	// is measured, 1M documents on a 24 GiB machine.
	SkipBuild bool
	// Force lets the bench truncate a documents table that is not empty.
	Force bool
	// Synth overrides the corpus shape (Seed and MeanWords come from above).
	Synth synth.Options
	// Config is the engine configuration (database URL, engine section);
	// the data directory is always a fresh temporary one.
	Config config.Config
	Log    zerolog.Logger
	// SampleMB bounds the text chunked by the single-goroutine measurement.
	SampleMB int
	// Checks is the number of teacher's checks (essays not in the archive)
	// timed against the committed index after the runs (0: none);
	// SimTextRuns of them are also timed with sim_text.
	Checks      int
	SimTextRuns int
	// IncrProfile, when set, is the file for a CPU profile of the
	// incremental run alone (the command's --cpuprofile covers it all).
	IncrProfile string
	// FullMemProfile, when set, is the file for a heap profile of the full
	// run taken near its peak (what was live when the memory was highest).
	FullMemProfile string
	// MemTrace prints the heap and the resident memory every two seconds
	// of each run, with the wall clock, to read beside the engine's log.
	MemTrace bool
}

// ChangeMix is the composition of the incremental change: half modified,
// three tenths added, one tenth soft-deleted and one tenth hard-deleted,
// so that every path of an incremental run (re-chunk, new IDs, freed IDs,
// lost rows by cascade) is in the figure.
var ChangeMix = struct{ Modified, Added, SoftDeleted, HardDeleted float64 }{0.5, 0.3, 0.1, 0.1}

func (o Options) withDefaults() Options {
	if o.Docs <= 0 {
		o.Docs = 10_000
	}
	if o.WordsPerDoc <= 0 {
		o.WordsPerDoc = 1000
	}
	if o.Changes < 0 {
		o.Changes = 0
	}
	if o.SampleMB <= 0 {
		o.SampleMB = 64
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

func (o Options) synthOptions() synth.Options {
	s := o.Synth
	if s == (synth.Options{}) {
		s = synth.Defaults()
	}
	s.Seed, s.MeanWords = o.Seed, o.WordsPerDoc
	return s
}
