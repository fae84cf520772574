package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/invindex"
)

// ChunkFigures is the tokenise-and-hash throughput (Tokenizer.DocChunks:
// words, 5-word windows, hashes, per-document sort and dedupe).
type ChunkFigures struct {
	TextBytes      int64   `json:"text_bytes"`
	Words          int64   `json:"words"`
	Postings       int64   `json:"postings"` // distinct chunks summed over documents
	GenSeconds     float64 `json:"gen_seconds"`
	GenMBps        float64 `json:"gen_mb_per_s"` // generator, all cores (not a plagd figure)
	SingleBytes    int64   `json:"single_bytes"` // sample chunked by one goroutine
	SingleMBps     float64 `json:"single_mb_per_s"`
	ParallelMBps   float64 `json:"parallel_mb_per_s"` // all documents, GOMAXPROCS goroutines
	PerCoreMBps    float64 `json:"parallel_mb_per_s_per_core"`
	ParallelCores  int     `json:"parallel_goroutines"`
	ParallelSecond float64 `json:"parallel_seconds"`
}

// BuildFigures is one index build over the whole corpus.
type BuildFigures struct {
	Nodes         int        `json:"nodes"` // slices built concurrently, one goroutine each
	Postings      int64      `json:"postings"`
	Seconds       float64    `json:"seconds"`
	MPostingsPS   float64    `json:"mpostings_per_s"`
	PerCoreMPS    float64    `json:"mpostings_per_s_per_core"`
	IndexBytes    int64      `json:"index_bytes"`
	IndexBPerPost float64    `json:"index_bytes_per_posting"`
	Mem           MemFigures `json:"mem"`
	RSSPerPosting float64    `json:"peak_rss_bytes_per_posting"` // includes the 4 B/posting input
}

// chunkCorpus generates the corpus batch by batch (about 64 MiB of text at
// a time, in parallel) and chunks each batch, timing only the chunking, so
// that generation never counts as plagd's time and the texts are never all
// in memory. It returns every document's distinct chunk IDs, which the build
// measurements reuse.
func chunkCorpus(ctx context.Context, g *synth.Generator, opt Options, p invindex.Params, w io.Writer) (ChunkFigures, []invindex.DocChunks, error) {
	var f ChunkFigures
	procs := runtime.GOMAXPROCS(0)
	f.ParallelCores = procs
	docs := make([]invindex.DocChunks, opt.Docs)
	batchDocs := max(64, (64<<20)/max(1, opt.WordsPerDoc*7))
	var genTime, parTime time.Duration
	texts := make([]string, 0, batchDocs)
	sampleLeft := int64(opt.SampleMB) << 20
	var single time.Duration
	last := time.Now()
	for from := 0; from < opt.Docs; from += batchDocs {
		if err := ctx.Err(); err != nil {
			return f, nil, err
		}
		to := min(from+batchDocs, opt.Docs)
		texts = texts[:to-from]
		t := time.Now()
		parallel(procs, to-from, func(i int) { texts[i] = g.Doc(from + i).Text })
		genTime += time.Since(t)
		var bytes int64
		for _, s := range texts {
			bytes += int64(len(s))
		}
		f.TextBytes += bytes

		// One goroutine, on the first batches, up to the sample size.
		if sampleLeft > 0 {
			tok := invindex.NewTokenizer(p)
			t = time.Now()
			for _, s := range texts {
				tok.DocChunks(s)
				f.SingleBytes += int64(len(s))
				sampleLeft -= int64(len(s))
				if sampleLeft <= 0 {
					break
				}
			}
			single += time.Since(t)
		}

		var words, postings atomic.Int64
		t = time.Now()
		parallelTok(procs, to-from, p, func(tok *invindex.Tokenizer, i int) {
			n, ch, fp := tok.DocChunks(texts[i])
			docs[from+i] = invindex.DocChunks{Doc: invindex.DocID(from + i), Chunks: ch, Checks: fp}
			words.Add(int64(n))
			postings.Add(int64(len(ch)))
		})
		parTime += time.Since(t)
		f.Words += words.Load()
		f.Postings += postings.Load()
		if time.Since(last) > 5*time.Second || to == opt.Docs {
			fmt.Fprintf(w, "  chunked %d/%d documents, %.0f MB, %.1fM postings\n", to, opt.Docs, float64(f.TextBytes)/1e6, float64(f.Postings)/1e6)
			last = time.Now()
		}
	}
	clear(texts)
	f.GenSeconds = genTime.Seconds()
	f.GenMBps = float64(f.TextBytes) / 1e6 / genTime.Seconds()
	f.SingleMBps = float64(f.SingleBytes) / 1e6 / single.Seconds()
	f.ParallelSecond = parTime.Seconds()
	f.ParallelMBps = float64(f.TextBytes) / 1e6 / parTime.Seconds()
	f.PerCoreMBps = f.ParallelMBps / float64(procs)
	return f, docs, nil
}

// parallel runs fn(0..n-1) on k goroutines taking indices in order.
func parallel(k, n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range k {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// parallelTok is parallel with a tokenizer per goroutine.
func parallelTok(k, n int, p invindex.Params, fn func(tok *invindex.Tokenizer, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range k {
		wg.Go(func() {
			tok := invindex.NewTokenizer(p)
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(tok, i)
			}
		})
	}
	wg.Wait()
}

// measureBuild builds the index of docs split into k equal chunk-ID ranges,
// one goroutine per range, as k in-process nodes do in a full run. k = 1 is
// the single-core figure.
func measureBuild(docs []invindex.DocChunks, p invindex.Params, k int) BuildFigures {
	bounds := invindex.SplitRange(p.SpaceSize(), k)
	parts := make([][]invindex.DocChunks, k)
	var postings int64
	for i := range parts {
		parts[i] = make([]invindex.DocChunks, 0, len(docs))
	}
	for _, d := range docs {
		postings += int64(len(d.Chunks))
		start := 0
		for i := range parts {
			end := start
			if bounds[i+1] >= 1<<32 {
				end = len(d.Chunks)
			} else {
				n, _ := slices.BinarySearch(d.Chunks[start:], uint32(bounds[i+1]))
				end = start + n
			}
			parts[i] = append(parts[i], invindex.DocChunks{Doc: d.Doc, Chunks: d.Chunks[start:end], Checks: d.Checks[start:end]})
			start = end
		}
	}
	slicesOut := make([]*invindex.Slice, k)
	mp := startMem(false, nil)
	t := time.Now()
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() { slicesOut[i] = invindex.BuildSlice(bounds[i], bounds[i+1], parts[i]) })
	}
	wg.Wait()
	el := time.Since(t)
	f := BuildFigures{Nodes: k, Postings: postings, Seconds: el.Seconds(), Mem: mp.end()}
	for _, s := range slicesOut {
		f.IndexBytes += int64(s.Bytes())
	}
	f.MPostingsPS = float64(postings) / el.Seconds() / 1e6
	f.PerCoreMPS = f.MPostingsPS / float64(min(k, runtime.GOMAXPROCS(0)))
	f.IndexBPerPost = float64(f.IndexBytes) / float64(max(postings, 1))
	f.RSSPerPosting = float64(f.Mem.PeakRSS) / float64(max(postings, 1))
	runtime.KeepAlive(slicesOut)
	return f
}
