package invindex

import (
	"unicode/utf8"
	"unsafe"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/disguise/wordseg"
)

// Letter-spaced words. Spacing the letters of a word apart ("p l a g i a r
// i s m") turns it into single-letter words that share no chunk with the
// word; a reader still sees the word. Words joins such a run into one word
// (the rule, and its limit, are disguise.SpacedRuns'): it spans the run,
// Start of its first letter to End of its last, and hashes as the
// concatenation of its letters would. A run whose words were spaced like
// its letters ("t h e c a t") is cut into the words disguise.SpacedWords
// finds, each spanning its letters and hashing as the word written
// plainly; when the cut is not confident the run stays one word.

// joinSpaced replaces the runs of single-letter words in ws (the words of
// text) by one word each, see above, and returns ws. Words before ws[from]
// are in no run (Words found no candidate pair before it). Only windows of
// consecutive single letters with nothing but spaces between them go
// through disguise.SpacedRuns; the loop that finds them is the whole cost
// on ordinary text.
func (t *Tokenizer) joinSpaced(text string, ws []Word, from int) []Word {
	out := ws[:from]
	next := from // ws[next:] are not in out yet
	for i := from; i+1 < len(ws); i++ {
		if !maybeLetter(text, ws[i+1]) || !maybeLetter(text, ws[i]) || !t.spacedPair(text, ws[i], ws[i+1]) {
			continue
		}
		// The window: ws[i:j], single letters one space or a wide gap
		// (disguise.WideGap) apart.
		j := i + 2
		for j < len(ws) && ws[j].End-ws[j].Start <= 16 && disguise.SingleLetter(text[ws[j].Start:ws[j].End]) {
			if gap := text[ws[j-1].End:ws[j].Start]; !disguise.OneSpace(gap) && !disguise.WideGap(gap) {
				break
			}
			j++
		}
		if j-i < disguise.MinSpacedRun {
			// Two letters alone ("a v" in Czech): no run to join.
			i = j - 1
			continue
		}
		t.window = append(t.window[:0], ws[i:j]...)
		win := t.window
		out = append(out, ws[next:i]...)
		cur := 0
		disguise.SpacedRuns(text, len(win), func(k int) (int, int) { return int(win[k].Start), int(win[k].End) }, func(k, n int) {
			out = append(out, win[cur:k]...)
			// The gaps around the run: from the word before it (the
			// last of out) and to the word after it (in win, or ws[j],
			// which out has not reached).
			before, after := 0, len(text)
			if len(out) > 0 {
				before = int(out[len(out)-1].End)
			}
			if k+n < len(win) {
				after = int(win[k+n].Start)
			} else if j < len(ws) {
				after = int(ws[j].Start)
			}
			run := win[k : k+n]
			if ends := t.segmentRun(text, run, text[before:run[0].Start], text[run[n-1].End:after]); ends != nil {
				prev := 0
				for _, e := range ends {
					out = append(out, Word{Start: run[prev].Start, End: run[e-1].End, Hash: fnv1a(t.letters[prev:e])})
					prev = e
				}
			} else {
				out = append(out, t.joinRun(text, run))
			}
			cur = k + n
		})
		out = append(out, win[cur:]...)
		next = j
		i = j - 1
	}
	return append(out, ws[next:]...)
}

// maybeLetter is a quick, inlined test that w may be a single letter: one
// byte, or a short word with a non-ASCII byte among its first two (a
// non-ASCII letter, or an ASCII letter with a combining mark).
func maybeLetter(text string, w Word) bool {
	n := w.End - w.Start
	return n == 1 || n <= 16 && (text[w.Start] >= utf8.RuneSelf || text[w.Start+1] >= utf8.RuneSelf)
}

// spacedPair reports whether a and b are single letters one space apart.
func (t *Tokenizer) spacedPair(text string, a, b Word) bool {
	return a.End-a.Start <= 16 && b.End-b.Start <= 16 && b.Start-a.End <= 24 &&
		disguise.SingleLetter(text[a.Start:a.End]) && disguise.OneSpace(text[a.End:b.Start]) &&
		disguise.SingleLetter(text[b.Start:b.End])
}

// segmentRun cuts the letters ws, a letter-spaced run between the gaps
// before and after, into words (disguise.SpacedWords) and returns the end
// of each word in ws, or nil to keep the run one word. The letters are
// kept in t.letters, one byte each: a run with a letter whose normal form
// is not one ASCII letter or digit is kept whole.
func (t *Tokenizer) segmentRun(text string, ws []Word, before, after string) []int {
	if len(ws) < wordseg.MinLetters {
		return nil
	}
	t.letters = t.letters[:0]
	for _, w := range ws {
		s := text[w.Start:w.End]
		if len(s) == 1 {
			t.letters = append(t.letters, asciiFold[s[0]])
			continue
		}
		n := t.normalize(s)
		if len(n) != 1 || asciiFold[n[0]] == 0 {
			return nil
		}
		t.letters = append(t.letters, n[0])
	}
	t.ends = disguise.SpacedWords(unsafe.String(unsafe.SliceData(t.letters), len(t.letters)), before, after, t.ends)
	return t.ends
}

// joinRun returns the word the letters ws make.
func (t *Tokenizer) joinRun(text string, ws []Word) Word {
	t.spaced = t.spaced[:0]
	ascii := true
	for _, w := range ws {
		s := text[w.Start:w.End]
		t.spaced = append(t.spaced, s...)
		ascii = ascii && len(s) == 1
	}
	var h uint64
	if ascii {
		h = fnvOffset64
		for _, c := range t.spaced {
			h = (h ^ uint64(asciiFold[c])) * fnvPrime64
		}
	} else {
		// normalize does not write t.spaced: no copy needed.
		h = t.hashGeneral(unsafe.String(unsafe.SliceData(t.spaced), len(t.spaced)), text, int(ws[0].Start), int(ws[len(ws)-1].End))
	}
	return Word{Start: ws[0].Start, End: ws[len(ws)-1].End, Hash: h}
}
