package synth

import "fmt"

// Options shape a synthetic archive. The zero value of a field means its
// default (see Defaults), so callers set only what they study.
type Options struct {
	// Seed makes the corpus reproducible: the same Options give the same
	// documents, byte for byte, on every machine and Go release.
	Seed uint64
	// MeanWords is the mean document length in words. The shape (mostly
	// essays of 1-3k words, ThesisShare theses of 10-30k) is scaled to it.
	MeanWords int
	// ThesisShare is the share of long documents (theses).
	ThesisShare float64
	// VocabSize is the number of distinct words; FunctionWords of them are
	// the most frequent ones.
	VocabSize int
	// ZipfS is the Zipf exponent of word frequencies (about 1 in real text).
	ZipfS float64
	// CopyShare is the share of documents that copy passages from earlier
	// documents (verbatim or lightly edited).
	CopyShare float64
	// EditedShare is the share of copied passages that are lightly edited.
	EditedShare float64
	// EditRate is the probability that a word of an edited passage, or of a
	// near-duplicate, is replaced.
	EditRate float64
	// NearDupShare is the share of documents that are near-duplicates of an
	// earlier document.
	NearDupShare float64
	// TemplateShare is the share of documents that start with a faculty
	// declaration (one of Faculties fixed paragraphs), the template text
	// whose document frequency the df cap exists for. Off by default.
	TemplateShare float64
	// Faculties is the number of distinct declaration paragraphs.
	Faculties int
	// PromptShare is the share of essays that start with the assignment
	// prompt of their course (one of Courses fixed paragraphs): students
	// paste the question above their answer. Off by default.
	PromptShare float64
	// Courses is the number of distinct assignment prompts.
	Courses int
	// StockRate is the probability that an own sentence opens with a stock
	// phrase ("the results of this study show that"), one of StockPhrases
	// shared by the whole archive; copies keep it. Off by default.
	StockRate float64
	// StockPhrases is the number of distinct stock phrases.
	StockPhrases int
}

// Realistic is an archive shaped like a real one rather than clean text:
// half the documents carry a faculty declaration, half the essays their
// course's assignment prompt, one sentence in twelve opens with one of 300
// stock phrases, and 30 % of the documents copy passages (half of them
// lightly edited) from one to three others.
func Realistic() Options {
	o := Defaults()
	o.TemplateShare = 0.5
	o.PromptShare = 0.5
	o.StockRate = 1.0 / 12
	o.CopyShare = 0.30
	return o
}

// Defaults are a realistic archive: 2,900-word mean, 5 % theses, 50k
// words, 10 % copiers, 1 % near-duplicates, no template text.
func Defaults() Options {
	return Options{
		Seed:         1,
		MeanWords:    0, // natural mean of the shape
		ThesisShare:  0.05,
		VocabSize:    50_000,
		ZipfS:        1.0,
		CopyShare:    0.10,
		EditedShare:  0.5,
		EditRate:     0.04,
		NearDupShare: 0.01,
		Faculties:    4,
		Courses:      40,
		StockPhrases: 300,
	}
}

// withDefaults fills zero fields from Defaults. A share can be turned off
// with a negative value.
func (o Options) withDefaults() Options {
	d := Defaults()
	if o.ThesisShare == 0 {
		o.ThesisShare = d.ThesisShare
	}
	if o.VocabSize == 0 {
		o.VocabSize = d.VocabSize
	}
	if o.ZipfS == 0 {
		o.ZipfS = d.ZipfS
	}
	if o.CopyShare == 0 {
		o.CopyShare = d.CopyShare
	}
	if o.EditedShare == 0 {
		o.EditedShare = d.EditedShare
	}
	if o.EditRate == 0 {
		o.EditRate = d.EditRate
	}
	if o.NearDupShare == 0 {
		o.NearDupShare = d.NearDupShare
	}
	if o.Faculties == 0 {
		o.Faculties = d.Faculties
	}
	for _, p := range []*float64{&o.ThesisShare, &o.CopyShare, &o.EditedShare, &o.EditRate, &o.NearDupShare, &o.TemplateShare,
		&o.PromptShare, &o.StockRate} {
		*p = min(max(*p, 0), 1)
	}
	if o.Courses == 0 {
		o.Courses = d.Courses
	}
	if o.StockPhrases == 0 {
		o.StockPhrases = d.StockPhrases
	}
	return o
}

// String prints the options that decide the corpus, seed first, so that a
// report says how to regenerate its input.
func (o Options) String() string {
	o = o.withDefaults()
	return fmt.Sprintf("seed=%d mean_words=%d thesis=%.2f vocab=%d zipf=%.2f copy=%.2f edited=%.2f edit_rate=%.3f near_dup=%.3f template=%.2f prompt=%.2f/%d stock=%.3f/%d",
		o.Seed, o.MeanWords, o.ThesisShare, o.VocabSize, o.ZipfS, o.CopyShare, o.EditedShare, o.EditRate, o.NearDupShare, o.TemplateShare,
		o.PromptShare, o.Courses, o.StockRate, o.StockPhrases)
}
