package report

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/related"
)

// Options tune a passage report.
type Options struct {
	// Align tunes the alignment (gaps, minimum length, suppressed chunks).
	Align passage.Options
	// Exclusions leaves quotations, block quotes and the bibliography out of
	// the coverage figures, in the document and in each source; passages
	// lying wholly inside the document's excluded text are not reported.
	// The zero value excludes nothing and gives the raw report, which
	// Report.Filter turns into the report of any exclusions without
	// aligning again.
	Exclusions passage.Exclusions
	// Common tells the document frequency of a window key that is common
	// text, 0 for others, and whether the count is exact rather than a
	// lower bound (engine.CommonText.DF); nil: nothing is common.
	// Report.Common lists where the document's common text lies; whether
	// it seeds passages is Align.Suppress, and whether it counts in the
	// figures Exclusions.Common (engine.CommonText.Apply sets all three,
	// from CountCommon).
	Common func(key uint64) (docs int, exact bool)
	// Template names the registered template holding a window key of the
	// document, "" for none; nil: none applies. Report.Common lists its
	// text too, which is left out as common text is.
	Template func(key uint64) string
	// CountCommon counts common and template text as any other: the
	// teacher's switch.
	CountCommon bool
	// SourceDoc, when set, gives the tokenised text of source id (its
	// Text is text), so that a caller building many reports whose sources
	// overlap (a run's similarity indexes) tokenises each source once; it
	// must return what NewDoc would with these Align options, and may be
	// called from several goroutines. nil: each source is tokenised here.
	SourceDoc func(id int64, text string) *passage.Doc
	// TextDoc, when set, is the document's own tokenised text, what NewDoc
	// makes of it with these Align options: a caller that keeps Docs for
	// its sources (SourceDoc) gives the same one when the document is a
	// source of another report too. nil: made here.
	TextDoc *passage.Doc
}

// DefaultSentenceDice is the Dice coefficient at which a report's sentence
// pairs seed passages (passage.Options.SentenceDice): reworded copies,
// whose sentences keep their content words but few runs of five
// identical words, show as passages. Measured with the PAN evaluation at
// the report's settings (docs/QUALITY.md).
const DefaultSentenceDice = 0.4

// alignOptions are a report's alignment options: opt with sentence seeds at
// DefaultSentenceDice unless set (negative: off), and the windows Suppress
// rejects (common text, templates) seeding no sentence either.
func alignOptions(opt passage.Options) passage.Options {
	switch {
	case opt.SentenceDice == 0:
		opt.SentenceDice = DefaultSentenceDice
	case opt.SentenceDice < 0:
		opt.SentenceDice = 0
	}
	if opt.SentenceSuppress == nil {
		opt.SentenceSuppress = opt.Suppress
	}
	return opt
}

// NewDoc is passage.NewDoc with, when sentence seeds are on in align (a
// report's: alignOptions), the content terms of each word
// (related.WordTerms). A caller that gives Build its sources' Docs
// (Options.SourceDoc) makes them with it.
func NewDoc(tok *invindex.Tokenizer, text string, align passage.Options) *passage.Doc {
	d := passage.NewDoc(tok, text)
	if alignOptions(align).SentenceDice > 0 {
		d.SetTerms(related.WordTerms(text, d.Words))
	}
	return d
}

// DefaultOptions exclude quotations, block quotes and the bibliography, as
// a teacher's report does by default.
func DefaultOptions() Options {
	return Options{Exclusions: passage.AllExclusions()}
}

// ErrNoText is the error of a report asked for a document without a stored
// text: no run has indexed it (pending, failed), or it is deleted. The
// callers that read the archive (daemon.Passages) return it, wrapped.
var ErrNoText = errors.New("no stored text")

// Report is where a document's text matches its sources.
type Report struct {
	// Doc is the document's id; 0 for a text that is not in the archive
	// (a checked file: daemon's CheckText), which has no header either.
	Doc int64 `json:"doc,omitempty"`
	// The document's header, from the archive; a restricted document shows
	// its text to admins only (documents.restricted).
	archive.Header
	// Coverage is the share of the document's characters covered by a
	// passage from any source, each counted once, excluded text left out
	// (passage.Coverage): the figure a teacher sees first.
	Coverage float64 `json:"coverage"`
	// Chunks is the document's number of distinct chunks, the denominator
	// of Similarity.
	Chunks int `json:"chunks"`
	// Excluded are the byte ranges of the document left out of coverage.
	Excluded []passage.Range `json:"excluded,omitempty"`
	// Common is the document's common text (Options.Common), each range
	// with the number of documents it is found in; left out of coverage
	// when the filter's Exclusions.Common says so.
	Common []passage.CommonRange `json:"common,omitempty"`
	// Sources are ranked as the similarity list ranks them: most shared
	// chunks first, ties by id.
	Sources []SourceReport `json:"sources"`
	// Flags say how the document's text was disguised (package disguise):
	// each kind, how many times, and byte ranges of Text.
	Flags []disguise.Flag `json:"flags,omitempty"`
	// Text is the document's text, which all offsets refer to.
	Text string `json:"-"`

	info *textInfo // what Filter needs of Text, found once; nil: found when needed
}

// SourceReport is one source of a document and the passages they share.
type SourceReport struct {
	ID int64 `json:"id"`
	// The source's header; a restricted source shows its text to admins only.
	archive.Header
	// Similarity is document→source, the share of the document's chunks
	// found in the source; Reverse is source→document.
	Similarity float64 `json:"similarity"`
	Reverse    float64 `json:"reverse"`
	Shared     int     `json:"shared_chunks"`
	// Passages are sorted by their position in the document; A offsets
	// refer to the document's text, B offsets to the source's.
	Passages []passage.Passage `json:"passages"`
	// CoverageA is the share of the document's characters covered by the
	// passages from this source; CoverageB the share of the source's
	// characters they cover. Excluded text is left out of both.
	CoverageA float64 `json:"coverage_doc"`
	CoverageB float64 `json:"coverage_source"`
	// Text is the source's stored text.
	Text string `json:"-"`

	info *textInfo
}

// Build aligns text with each source and reports the passages they share,
// with coverage both ways and overall, opt.Exclusions applied
// (Report.Filter). srcs are the sources in rank order, each with its text,
// header and similarity figures; Build fills in their passages and
// coverage, writing into srcs's elements, and the report keeps srcs. p must
// be the Params of the index the similarities were counted on, so that
// passages and similarities agree on what is shared. The report's Doc,
// header and Chunks are the caller's to set.
//
// With zero opt.Exclusions the report is raw: Report.Filter applies any
// exclusions, a minimum similarity and excluded sources to it afterwards,
// giving exactly what Build gives with those exclusions, without aligning
// again.
//
// The sources are aligned in parallel, one worker per CPU. When ctx is
// cancelled Build stops early and returns what it has: the caller checks
// ctx.Err().
func Build(ctx context.Context, p invindex.Params, text string, srcs []SourceReport, opt Options) Report {
	return buildRaw(ctx, p, text, srcs, opt).Filter(Filter{Exclusions: opt.Exclusions})
}

// buildRaw aligns text with each source (in parallel, one tokenizer per
// worker; the document's keys are hashed once), keeping every passage, and
// finds what Filter needs of each text. It stops early, returning what it
// has, when ctx is cancelled. The coverage figures are left for Filter.
func buildRaw(ctx context.Context, p invindex.Params, text string, srcs []SourceReport, o Options) Report {
	opt := alignOptions(o.Align)
	rep := Report{Text: text, Sources: srcs, info: newTextInfo(text)}
	doc := o.TextDoc
	if doc == nil {
		doc = NewDoc(invindex.NewTokenizer(p), text, opt)
	}
	rep.Common = passage.CommonRanges(doc, o.Common, o.Template)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(srcs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := invindex.NewTokenizer(p)
			for i := range work {
				s := &srcs[i]
				var b *passage.Doc
				if o.SourceDoc != nil {
					b = o.SourceDoc(s.ID, s.Text)
				} else {
					b = NewDoc(tok, s.Text, opt)
				}
				s.Passages = passage.Align(doc, b, opt)
				if s.Passages == nil {
					s.Passages = []passage.Passage{}
				}
				s.info = newTextInfo(s.Text)
			}
		}()
	}
	for i := range srcs {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	return rep
}
