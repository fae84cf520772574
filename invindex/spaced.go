package invindex

import "github.com/plagd/plagd/disguise"

// Letter-spaced words. Spacing the letters of a word apart ("p l a g i a r
// i s m") turns it into single-letter words that share no chunk with the
// word; a reader still sees the word. Words joins such a run into one word
// (the rule, and its limit, are disguise.SpacedRuns'): it spans the run,
// Start of its first letter to End of its last, and hashes as the
// concatenation of its letters would.

// joinSpaced replaces the runs of single-letter words in ws (the words of
// text) by one word each, see above, and returns ws.
func (t *Tokenizer) joinSpaced(text string, ws []Word) []Word {
	// Fast reject, inline: no two single-letter words one space apart.
	i := 0
	for ; i+1 < len(ws); i++ {
		if ws[i].End-ws[i].Start <= 8 && ws[i+1].End-ws[i+1].Start <= 8 && ws[i+1].Start-ws[i].End <= 24 &&
			disguise.SingleLetter(text[ws[i].Start:ws[i].End]) && disguise.OneSpace(text[ws[i].End:ws[i+1].Start]) &&
			disguise.SingleLetter(text[ws[i+1].Start:ws[i+1].End]) {
			break
		}
	}
	if i+1 >= len(ws) {
		return ws
	}
	out := ws[:i]
	next := i
	span := func(k int) (int, int) { return int(ws[i+k].Start), int(ws[i+k].End) }
	disguise.SpacedRuns(text, len(ws)-i, span, func(k, n int) {
		out = append(out, ws[next:i+k]...)
		out = append(out, t.joinRun(text, ws[i+k:i+k+n]))
		next = i + k + n
	})
	return append(out, ws[next:]...)
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
		h = t.hashGeneral(string(t.spaced))
	}
	return Word{Start: ws[0].Start, End: ws[len(ws)-1].End, Hash: h}
}
