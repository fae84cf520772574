package disguise

import "sort"

// Kind names one way of hiding copied text from a checker. Kinds are stable
// strings: they are stored with the document's text and returned by the API.
type Kind string

// The kinds plagd flags. Every kind is also undone before chunking and
// aligning (package invindex, package extract), so a disguised copy is found
// at the similarity of the clean copy; the flag tells the teacher that the
// text was disguised, which is evidence of its own.
const (
	// Confusable: letters of another script that look like the letters of
	// the word they stand in (Cyrillic "а" for Latin "a"), following the
	// confusables data of Unicode Technical Standard #39.
	Confusable Kind = "confusable"
	// Invisible: zero-width and other format characters (zero-width space
	// and joiners, soft hyphen, word joiner, bidirectional controls) inside
	// or between words, where a reader sees nothing.
	Invisible Kind = "invisible"
	// LetterSpaced: words written with spaces between their letters
	// ("p l a g i a r i s m").
	LetterSpaced Kind = "letter_spaced"
	// HiddenText: text in the file a reader of the rendered page cannot see
	// (white or near-white text, tiny fonts, text outside the page, runs
	// marked hidden). Extraction leaves it out of the document's text.
	HiddenText Kind = "hidden_text"
)

// Span is a byte range [Start, End) of the document's stored text. A
// HiddenText span is empty (Start == End): the position where text that was
// left out stood.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// MaxSpans bounds the spans a flag keeps: the first MaxSpans in text order.
// Count still counts every occurrence.
const MaxSpans = 100

// Flag is one finding on a document: what kind of disguise, how many
// occurrences (characters for Confusable, Invisible and HiddenText, words for
// LetterSpaced), and where the first of them are.
type Flag struct {
	Kind  Kind   `json:"kind"`
	Count int    `json:"count"`
	Spans []Span `json:"spans,omitempty"`
	// Detail says in words what was found, for the report ("Cyrillic
	// letters in Latin words", "white text, 4 runs").
	Detail string `json:"detail,omitempty"`
}

// Merge returns the flags of a and b with one flag per kind, in the order
// of kindOrder: counts add up, spans are merged in text order and cut at
// MaxSpans, details are joined. It is how extraction's findings (HiddenText)
// and the text's (Scan) become the document's flags.
func Merge(a, b []Flag) []Flag {
	by := map[Kind]*Flag{}
	for _, f := range append(append([]Flag(nil), a...), b...) {
		m, ok := by[f.Kind]
		if !ok {
			c := f
			c.Spans = append([]Span(nil), f.Spans...)
			by[f.Kind] = &c
			continue
		}
		m.Count += f.Count
		m.Spans = append(m.Spans, f.Spans...)
		switch {
		case m.Detail == "":
			m.Detail = f.Detail
		case f.Detail != "" && f.Detail != m.Detail:
			m.Detail += "; " + f.Detail
		}
	}
	out := make([]Flag, 0, len(by))
	for _, k := range kindOrder {
		if f, ok := by[k]; ok {
			out = append(out, *f)
			delete(by, k)
		}
	}
	rest := make([]Kind, 0, len(by))
	for k := range by {
		rest = append(rest, k)
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i] < rest[j] })
	for _, k := range rest {
		out = append(out, *by[k])
	}
	for i := range out {
		s := out[i].Spans
		sort.SliceStable(s, func(x, y int) bool { return s[x].Start < s[y].Start })
		if len(s) > MaxSpans {
			out[i].Spans = s[:MaxSpans]
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// kindOrder is the order flags are listed in: the strongest evidence first.
var kindOrder = []Kind{HiddenText, Confusable, Invisible, LetterSpaced}
