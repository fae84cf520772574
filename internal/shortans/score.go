package shortans

import (
	"context"
	"strings"
	"unicode"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/related"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/termstat"
)

// Names of the scores of an answer against its question's source.
const (
	// Similarity is plagd's similarity: the share of the answer's distinct
	// chunks (invindex windows) found in the source.
	Similarity = "similarity"
	// Coverage is the report's: the share of the answer's characters in
	// passages aligned with the source.
	Coverage = "coverage"
	// Cosine is the related documents' cosine of TF-IDF vectors (stemmed
	// words, stop words removed).
	Cosine = "cosine"
	// Naive5 is the baseline: the share of the answer's distinct 5-word
	// sequences (lower-cased words of letters and digits) found in the
	// source, without any of plagd's normalisation.
	Naive5 = "naive5"
)

// ScoreNames lists the scores Scores computes, in the order of the tables.
var ScoreNames = []string{Similarity, Coverage, Cosine, Naive5}

// ScoreOptions tune Scores.
type ScoreOptions struct {
	// Params are the index parameters (invindex.DefaultParams when zero).
	Params invindex.Params
	// MaxDFShare drops from the TF-IDF vectors terms in more than this
	// share of the corpus's documents (0: keep all; related.Model).
	MaxDFShare float64
	// Report are the report's options for Coverage (zero: the raw report,
	// passage.Options' defaults).
	Report report.Options
}

// Scores computes, without a database, every score of ScoreNames for
// every answer of c (in the order of c.Answers) against its question's
// source. Unlike a run, it counts every chunk: no document-frequency cap
// (engine.df_cap) leaves out chunks many answers share with the source, and
// no minimum of shared chunks drops a pair; the cosine's IDF is over the
// corpus's documents (sources and answers).
func Scores(ctx context.Context, c *Corpus, opt ScoreOptions) map[string][]float64 {
	p := opt.Params
	if p.WindowWords == 0 {
		p = invindex.DefaultParams()
	}
	tk := invindex.NewTokenizer(p)
	keys := func(text string) map[uint64]bool {
		_, ids, checks := tk.DocChunks(text)
		m := make(map[uint64]bool, len(ids))
		for i, id := range ids {
			m[uint64(id)<<8|uint64(checks[i])] = true
		}
		return m
	}

	// TF-IDF over every document of the corpus, as a run's model is over
	// the archive.
	df := termstat.NewDocFreq()
	analyze := func(text string) []related.TermCount {
		_, terms := related.Analyze(text, nil)
		df.Add(terms)
		return terms
	}
	srcKeys := make([]map[uint64]bool, len(c.Questions))
	srcTerms := make([][]related.TermCount, len(c.Questions))
	srcGrams := make([]map[string]bool, len(c.Questions))
	for i, q := range c.Questions {
		srcKeys[i], srcTerms[i], srcGrams[i] = keys(q.Source), analyze(q.Source), NGrams(q.Source, 5)
	}
	answers := c.Answers()
	ansTerms := make([][]related.TermCount, len(answers))
	for i, a := range answers {
		ansTerms[i] = analyze(a.Text)
	}
	model := related.NewModel(0, df, opt.MaxDFShare)
	srcVec := make([]related.Vector, len(c.Questions))
	for i := range c.Questions {
		srcVec[i] = model.Vector(srcTerms[i])
	}

	out := map[string][]float64{}
	for _, n := range ScoreNames {
		out[n] = make([]float64, len(answers))
	}
	for i, a := range answers {
		if ctx.Err() != nil {
			break
		}
		q := c.Questions[a.Question]
		ak := keys(a.Text)
		shared := 0
		for k := range ak {
			if srcKeys[a.Question][k] {
				shared++
			}
		}
		if len(ak) > 0 {
			out[Similarity][i] = float64(shared) / float64(len(ak))
		}
		rep := report.Build(ctx, p, a.Text, []report.SourceReport{{Text: q.Source}}, opt.Report)
		out[Coverage][i] = rep.Coverage
		out[Cosine][i] = related.Cosine(model.Vector(ansTerms[i]), srcVec[a.Question])
		out[Naive5][i] = Containment(NGrams(a.Text, 5), srcGrams[a.Question])
	}
	return out
}

// NGrams is the set of n-word sequences of text's lower-cased words (runs
// of letters and digits).
func NGrams(text string, n int) map[string]bool {
	ws := gramWords(text)
	out := map[string]bool{}
	for i := 0; i+n <= len(ws); i++ {
		out[strings.Join(ws[i:i+n], " ")] = true
	}
	return out
}

// gramWords are text's lower-cased words as NGrams counts them: runs of
// letters and digits.
func gramWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Containment is the share of a's members that are in b (0 for an empty
// a): Broder's containment of a in b ("On the resemblance and containment
// of documents", A. Z. Broder, 1997).
func Containment(a, b map[string]bool) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
