package synth

// writer renders sentences into one growing byte buffer. Paragraph breaks
// come from the document's layout stream, edits from its edit stream, so a
// copied sentence reads exactly like its source unless it is edited.
type writer struct {
	g        *Generator
	buf      []byte
	layout   rng
	edit     rng
	inPara   int // sentences left in the current paragraph
	dropRate float64
}

// paragraph writes a fixed paragraph (template text).
func (w *writer) paragraph(text string) {
	w.breakPara()
	w.buf = append(w.buf, text...)
	w.inPara = 0
}

func (w *writer) breakPara() {
	if len(w.buf) > 0 {
		w.buf = append(w.buf, '\n', '\n')
	}
}

// sentences writes own sentences [from, to) of document j; each word is
// replaced with probability rate, and with dropRate a sentence is skipped.
func (w *writer) sentences(j, from, to int, rate float64) {
	for k := from; k < to; k++ {
		if w.dropRate > 0 && w.edit.chance(w.dropRate) {
			continue
		}
		if w.inPara == 0 {
			w.breakPara()
			w.inPara = 3 + w.layout.intn(6)
		} else {
			w.buf = append(w.buf, ' ')
		}
		w.inPara--
		w.sentence(j, k, rate)
	}
}

// sentence writes own sentence k of document j: 8-30 words (triangular,
// mean 19), capitalised, with the odd comma, ending in a full stop.
func (w *writer) sentence(j, k int, rate float64) {
	v := w.g.vocab
	r := newRNG(w.g.opt.Seed, j, streamSentence+uint64(k))
	n := 8 + r.intn(12) + r.intn(12)
	// A local buffer: appending to w.buf would pay a GC write barrier per
	// word while a collection runs, which it often does at 100 MB/s.
	buf := w.buf
	// A stock phrase opens the sentence with StockRate; it is part of the
	// sentence, so a copy carries it, and an edit never touches it.
	stock := false
	if w.g.stock != nil {
		if sr := newRNG(w.g.opt.Seed, j, streamStock+uint64(k)); sr.chance(w.g.opt.StockRate) {
			phrase := w.g.stock[sr.intn(len(w.g.stock))]
			l := len(buf)
			buf = append(buf, phrase...)
			buf[l] = upper(buf[l])
			buf = append(buf, ' ')
			stock = true
		}
	}
	for i := range n {
		c := v.draw(&r)
		comma := i < n-1 && r.intn(12) == 0
		if rate > 0 && w.edit.chance(rate) {
			c = v.draw(&w.edit)
		}
		// Copy the whole fixed-size cell and keep n bytes: an inline move
		// instead of a memmove call per word.
		l := len(buf)
		if cap(buf)-l < maxWord+2 {
			buf = append(buf, make([]byte, maxWord+2)...)[:l]
		}
		buf = buf[:l+1+maxWord]
		at := l
		if i > 0 {
			buf[l] = ' '
			at++
		}
		*(*[maxWord]byte)(buf[at:]) = c.word
		if i == 0 && !stock {
			buf[at] = upper(buf[at])
		}
		buf = buf[:at+int(c.n)]
		if comma {
			buf = append(buf, ',')
		}
	}
	w.buf = append(buf, '.')
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}
