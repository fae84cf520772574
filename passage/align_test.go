package passage

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/invindex"
)

func alignSeed(t testing.TB) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PLAGD_TEST_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (replay with PLAGD_TEST_SEED=%d)", seed, seed)
	return seed
}

func alignTexts(a, b string, opt Options) []Passage {
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	return Align(NewDoc(tok, a), NewDoc(tok, b), opt)
}

// Fixed texts for the golden cases: sentences of ordinary prose, each
// between 12 and 30 words.
const (
	sCommittee = "The committee examined the thesis in detail and found the methodology sound and the results reproducible in every respect"
	sRiver     = "Rivers that drain the northern slopes carry more sediment in spring, when the snow melts faster than the soil can absorb it"
	sSurvey    = "A survey of four hundred households showed that most families spend less on heating after the insulation programme was introduced"
	sCzech     = "Výsledky průzkumu ukázaly, že většina domácností po zateplení domu výrazně snížila spotřebu energie na vytápění v zimních měsících"
	fillerA    = "Our own introduction discusses unrelated matters such as weather, markets and the history of printing presses in small towns."
	fillerB    = "Something else entirely opens this other document, with talk of gardens, bicycles and a long journey across several borders."
	fillerC    = "Between the borrowed parts there is a long stretch of original writing that explains, compares and argues with many sources, " +
		"so that the two copied passages are clearly apart from each other and cannot be taken for one, since far more than twenty words lie between them here."
)

type wantPassage struct{ a, b string } // the passage's text in a and in b

// TestAlign_Golden checks fixed pairs against the passages a reader would
// mark, exact to the byte (compared as the texts they cut out).
func TestAlign_Golden(t *testing.T) {
	shortS := "the results were reproducible in every respect today"
	cases := []struct {
		name string
		a, b string
		opt  Options
		want []wantPassage
	}{
		{
			name: "verbatim sentence",
			a:    fillerA + " " + sCommittee + ". " + fillerC,
			b:    fillerB + "\n\n" + sCommittee + ".\nThe end.",
			want: []wantPassage{{sCommittee, sCommittee}},
		},
		{
			name: "two passages, sorted by position in a",
			a:    sRiver + ". " + fillerC + " " + sSurvey + ".",
			b:    sSurvey + ". " + fillerB + " " + sRiver + ".",
			want: []wantPassage{{sRiver, sRiver}, {sSurvey, sSurvey}},
		},
		{
			name: "case, punctuation and line breaks do not matter",
			a:    fillerA + " " + sCommittee + ".",
			b:    strings.ToUpper(strings.ReplaceAll(sCommittee, " and ", ",\n  and ")) + "!",
			want: []wantPassage{{sCommittee, strings.ToUpper(strings.ReplaceAll(sCommittee, " and ", ",\n  and "))}},
		},
		{
			name: "one word replaced",
			a:    fillerA + " " + sCommittee + ". " + fillerC,
			b:    fillerB + " " + strings.Replace(sCommittee, "methodology", "method", 1) + ".",
			want: []wantPassage{{sCommittee, strings.Replace(sCommittee, "methodology", "method", 1)}},
		},
		{
			name: "sentences swapped",
			a:    fillerA + " " + sRiver + ". " + sSurvey + ". " + fillerC,
			b:    fillerB + " " + sSurvey + ". " + sRiver + ". " + fillerB,
			want: []wantPassage{{sRiver + ". " + sSurvey, sSurvey + ". " + sRiver}},
		},
		{
			name: "Czech with diacritics",
			a:    "Úvod práce pojednává o jiných věcech. " + sCzech + ". Závěr.",
			b:    fillerB + " " + sCzech + " a další text.",
			want: []wantPassage{{sCzech, sCzech}},
		},
		{
			name: "too short",
			a:    fillerA + " " + shortS + ". " + fillerC,
			b:    fillerB + " " + shortS + ". " + fillerB,
			want: nil,
		},
		{
			name: "short passage kept with a lower minimum",
			a:    fillerA + " " + shortS + ". " + fillerC,
			b:    fillerB + " " + shortS + ". " + fillerB,
			opt:  Options{MinWords: 8},
			want: []wantPassage{{shortS, shortS}},
		},
		{
			name: "pasted twice into a",
			a:    sSurvey + ". " + fillerC + " " + sSurvey + ".",
			b:    fillerB + " " + sSurvey + ".",
			want: []wantPassage{{sSurvey, sSurvey}, {sSurvey, sSurvey}},
		},
		{
			name: "twice in b: one place is the evidence",
			a:    fillerA + " " + sSurvey + ".",
			b:    sSurvey + ". " + fillerC + " " + sSurvey + ".",
			want: []wantPassage{{sSurvey, sSurvey}},
		},
		{
			name: "suppressed chunks do not match",
			a:    fillerA + " " + sCommittee + ".",
			b:    sCommittee,
			opt:  Options{Suppress: func(uint64) bool { return true }},
			want: nil,
		},
		{
			name: "no common text",
			a:    fillerA,
			b:    fillerB,
			want: nil,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := alignTexts(c.a, c.b, c.opt)
			if len(got) != len(c.want) {
				t.Fatalf("got %d passages, want %d:\n%s", len(got), len(c.want), describe(c.a, c.b, got))
			}
			for i, w := range c.want {
				p := got[i]
				if ga, gb := c.a[p.AStart:p.AEnd], c.b[p.BStart:p.BEnd]; ga != w.a || gb != w.b {
					t.Errorf("passage %d:\n a: %q\n want %q\n b: %q\n want %q", i, ga, w.a, gb, w.b)
				}
			}
			if len(c.want) == 2 && c.want[0] == c.want[1] && got[0].BStart != got[1].BStart {
				t.Errorf("both passages should point to the one place in b: %+v", got)
			}
		})
	}
}

func describe(a, b string, ps []Passage) string {
	var sb strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&sb, "  %+v\n    a: %q\n    b: %q\n", p, a[p.AStart:p.AEnd], b[p.BStart:p.BEnd])
	}
	return sb.String()
}

// TestAlign_GoldenOffsets pins the numbers of one passage, not only its text.
func TestAlign_GoldenOffsets(t *testing.T) {
	a := "Intro. " + sCommittee + ". Outro."
	b := sCommittee
	got := alignTexts(a, b, Options{})
	want := []Passage{{AStart: 7, AEnd: 7 + len(sCommittee), BStart: 0, BEnd: len(sCommittee), AWords: 19, BWords: 19, Shared: 15}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// alignText is a text of n words from a vocabulary of made-up words, with
// punctuation and line breaks, and the byte offsets of its words.
type alignText struct {
	words []string
	seps  []string // seps[i] precedes words[i]
}

func newAlignText(rng *rand.Rand, vocab []string, n int) *alignText {
	t := &alignText{}
	for i := 0; i < n; i++ {
		t.words = append(t.words, vocab[rng.IntN(len(vocab))])
		sep := " "
		switch r := rng.IntN(30); {
		case i == 0:
			sep = ""
		case r == 0:
			sep = ".\n\n"
		case r < 3:
			sep = ", "
		case r < 5:
			sep = ". "
		case r == 5:
			sep = " – "
		}
		t.seps = append(t.seps, sep)
	}
	return t
}

func (t *alignText) String() string {
	var sb strings.Builder
	for i, w := range t.words {
		sb.WriteString(t.seps[i])
		sb.WriteString(w)
	}
	return sb.String()
}

// offset is the byte offset of word i (len(words): the end of the text).
func (t *alignText) offset(i int) int {
	n := 0
	for j := 0; j < i && j < len(t.words); j++ {
		n += len(t.seps[j]) + len(t.words[j])
	}
	if i < len(t.words) {
		n += len(t.seps[i])
	}
	return n
}

func (t *alignText) end(i int) int { return t.offset(i) + len(t.words[i]) }

func makeVocab(rng *rand.Rand, n int) []string {
	letters := []rune("abcdefghijklmnopqrstuvwxyzáčďéěíňóřšťúůýž")
	seen := map[string]bool{}
	var v []string
	for len(v) < n {
		w := make([]rune, 2+rng.IntN(9))
		for i := range w {
			w[i] = letters[rng.IntN(len(letters))]
		}
		if s := string(w); !seen[s] {
			seen[s] = true
			v = append(v, s)
		}
	}
	return v
}

// TestAlign_VerbatimCopyIsExact is the property the issue asks for: a
// passage of a copied verbatim into b is found, with offsets exact to the
// byte in both texts. The copy may extend by a word on either side when the
// neighbouring words happen to agree too; the expectation extends the same
// way.
func TestAlign_VerbatimCopyIsExact(t *testing.T) {
	seed := alignSeed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	vocab := makeVocab(rng, 300) // small, so that neighbouring words sometimes agree
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	for iter := 0; iter < 300; iter++ {
		a := newAlignText(rng, vocab, 30+rng.IntN(400))
		b := newAlignText(rng, vocab, rng.IntN(400))
		minWords := DefaultMinWords
		length := minWords + rng.IntN(min(200, len(a.words)-minWords)+1)
		s := rng.IntN(len(a.words) - length + 1)
		e := s + length
		at := rng.IntN(len(b.words) + 1) // insert before b's word at
		aText := a.String()
		copied := aText[a.offset(s):a.end(e-1)]
		// Expected ends, extended while the neighbours agree.
		ws, we, bs, be := s, e, at, at // word ranges in a and (before insertion) b
		for ws > 0 && bs > 0 && a.words[ws-1] == b.words[bs-1] {
			ws, bs = ws-1, bs-1
		}
		for we < len(a.words) && be < len(b.words) && a.words[we] == b.words[be] {
			we, be = we+1, be+1
		}
		var bText string
		var insAt int
		if at == len(b.words) {
			prefix := b.String()
			if prefix != "" {
				prefix += " "
			}
			bText, insAt = prefix+copied, len(prefix)
		} else {
			cut := b.offset(at)
			prefix := b.String()[:cut]
			bText, insAt = prefix+copied+" "+b.String()[cut:], cut
		}
		wantA := Range{a.offset(ws), a.end(we - 1)}
		// In b, the words before the insertion keep their offsets; those
		// after it move by len(copied)+1.
		wantB := Range{insAt, insAt + len(copied)}
		if bs < at {
			wantB.Start = b.offset(bs)
		}
		if be > at {
			wantB.End = b.end(be-1) + len(copied) + 1
		}
		got := Align(NewDoc(tok, aText), NewDoc(tok, bText), Options{})
		if len(got) != 1 || got[0].A() != wantA || got[0].B() != wantB {
			t.Fatalf("iteration %d (seed %d): copied words %d..%d of a to word %d of b;\nwant a %v %q\n     b %v %q\ngot:\n%s",
				iter, seed, s, e, at, wantA, aText[wantA.Start:wantA.End], wantB, bText[wantB.Start:wantB.End], describe(aText, bText, got))
		}
	}
}

// TestAlign_ObfuscatedCopyIsFound copies passages with some words replaced,
// some words dropped, or sentences reordered: the passage is still found,
// covering most of the copy and little else.
func TestAlign_ObfuscatedCopyIsFound(t *testing.T) {
	seed := alignSeed(t)
	rng := rand.New(rand.NewPCG(seed, 2))
	vocab := makeVocab(rng, 5000)
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	for _, kind := range []string{"replace", "drop", "shuffle"} {
		t.Run(kind, func(t *testing.T) {
			var recall, precision float64
			const iters = 100
			for iter := 0; iter < iters; iter++ {
				a := newAlignText(rng, vocab, 400)
				b := newAlignText(rng, vocab, 400)
				s := 100 + rng.IntN(50)
				e := s + 60 + rng.IntN(100)
				copied := slicesClone(a.words[s:e])
				switch kind {
				case "replace": // one word in eight
					for i := range copied {
						if rng.IntN(8) == 0 {
							copied[i] = vocab[rng.IntN(len(vocab))]
						}
					}
				case "drop":
					kept := copied[:0]
					for i, w := range copied {
						if i == 0 || i == len(copied)-1 || rng.IntN(10) != 0 {
							kept = append(kept, w)
						}
					}
					copied = kept
				case "shuffle": // blocks of 10-20 words swapped around
					var blocks [][]string
					for i := 0; i < len(copied); {
						n := min(10+rng.IntN(11), len(copied)-i)
						blocks = append(blocks, copied[i:i+n])
						i += n
					}
					rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
					copied = nil
					for _, bl := range blocks {
						copied = append(copied, bl...)
					}
				}
				at := 100 + rng.IntN(200)
				bWords := append(slicesClone(b.words[:at]), append(copied, b.words[at:]...)...)
				aText, bText := a.String(), strings.Join(bWords, " ")
				wantA := Range{a.offset(s), a.end(e - 1)}
				got := Align(NewDoc(tok, aText), NewDoc(tok, bText), Options{})
				var rs []Range
				for _, p := range got {
					rs = append(rs, p.A())
				}
				covered, inside := rangeBytes(rs), rangeBytes(SubtractRanges(rs, SubtractRanges([]Range{{0, len(aText)}}, []Range{wantA})))
				recall += float64(inside) / float64(wantA.Len())
				if covered > 0 {
					precision += float64(inside) / float64(covered)
				}
			}
			recall /= iters
			precision /= iters
			t.Logf("%s: recall %.3f, precision %.3f", kind, recall, precision)
			if recall < 0.85 || precision < 0.95 {
				t.Fatalf("%s: recall %.3f, precision %.3f: want >= 0.85 and >= 0.95", kind, recall, precision)
			}
		})
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func rangeBytes(rs []Range) int {
	n := 0
	for _, r := range UnionRanges(rs) {
		n += r.Len()
	}
	return n
}

// TestAlign_Deterministic aligns the same texts repeatedly and from docs
// that are shared between goroutines.
func TestAlign_Deterministic(t *testing.T) {
	a := fillerA + " " + sRiver + ". " + sSurvey + ". " + fillerC + " " + sCommittee
	b := sCommittee + ". " + fillerB + " " + sSurvey + ". " + sRiver + "."
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	da := NewDoc(tok, a)
	want := fmt.Sprint(Align(da, NewDoc(tok, b), Options{}))
	done := make(chan string)
	for range 4 {
		go func() {
			done <- fmt.Sprint(Align(da, NewDoc(invindex.NewTokenizer(invindex.DefaultParams()), b), Options{}))
		}()
	}
	for range 4 {
		if got := <-done; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}

func TestAlign_Degenerate(t *testing.T) {
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	for _, c := range [][2]string{{"", ""}, {"one two", "one two"}, {"", sCommittee}, {sCommittee, ""}} {
		if got := Align(NewDoc(tok, c[0]), NewDoc(tok, c[1]), Options{}); len(got) != 0 {
			t.Errorf("Align(%q, %q) = %v, want none", c[0], c[1], got)
		}
	}
	// Different window sizes cannot be aligned.
	tok4 := invindex.NewTokenizer(invindex.Params{WindowWords: 4, ChunkBits: 28})
	if got := Align(NewDoc(tok, sCommittee), NewDoc(tok4, sCommittee), Options{}); len(got) != 0 {
		t.Errorf("windows of 5 and 4 words aligned: %v", got)
	}
	// A text of one repeated word: its windows exceed maxKeyRepeat and give no seeds.
	rep := strings.Repeat("la ", 1000)
	if got := Align(NewDoc(tok, rep), NewDoc(tok, rep), Options{}); len(got) != 0 {
		t.Errorf("repeated word aligned: %v", got)
	}
}

// TestDocBytes_CountsTheWindowIndex: Bytes counts the window index Align
// builds, as build allocates it, for texts of any length; and it does not
// change once the index is built (a cache subtracts what it added).
func TestDocBytes_CountsTheWindowIndex(t *testing.T) {
	tok := invindex.NewTokenizer(invindex.Params{WindowWords: 5, ChunkBits: 28})
	for _, words := range []int{0, 3, 7, 100, 1000, 4099} {
		text := strings.Repeat("one two three four five six seven ", words/7+1)
		d := NewDoc(tok, text)
		before := d.Bytes()
		x := d.index()
		built := len(x.keys)*8 + len(x.first)*4 + len(x.count)*4 + len(x.next)*4
		if got := keyIndexBytes(len(d.Keys)); got != built {
			t.Errorf("%d keys: keyIndexBytes %d, build allocated %d", len(d.Keys), got, built)
		}
		if after := d.Bytes(); after != before {
			t.Errorf("%d keys: Bytes %d before the index was built, %d after", len(d.Keys), before, after)
		}
		if before < built+len(d.Keys)*8 {
			t.Errorf("%d keys: Bytes %d is less than the keys and their index (%d)", len(d.Keys), before, built+len(d.Keys)*8)
		}
	}
}
