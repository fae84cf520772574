package invindex

import (
	"bytes"
	"testing"
)

// The extra chunk kind adds the short windows to the document's chunks: two
// texts sharing three words in a row but no five share a chunk only with it.
func TestDocChunks_ExtraWindows(t *testing.T) {
	a := "alpha beta gamma delta epsilon zeta"
	b := "one two beta gamma delta three four"
	shared := func(p Params) int {
		tok := NewTokenizer(p)
		_, ca, ka := tok.DocChunks(a)
		_, cb, kb := tok.DocChunks(b)
		set := map[uint64]bool{}
		for i, c := range cb {
			set[uint64(c)<<8|uint64(kb[i])] = true
		}
		n := 0
		for i, c := range ca {
			if set[uint64(c)<<8|uint64(ka[i])] {
				n++
			}
		}
		return n
	}
	p := DefaultParams()
	if n := shared(p); n != 0 {
		t.Fatalf("without extra windows: %d shared chunks, want 0", n)
	}
	p.ExtraWindowWords = 3
	if n := shared(p); n != 1 {
		t.Fatalf("with 3-word extra windows: %d shared chunks, want 1 (beta gamma delta)", n)
	}
	_, main, _ := NewTokenizer(DefaultParams()).DocChunks(a)
	_, both, _ := NewTokenizer(p).DocChunks(a)
	if len(main) != 2 || len(both) != 2+4 {
		t.Fatalf("chunks: %d main, %d with extra; want 2 and 6", len(main), len(both))
	}
	// The setting travels in index file headers.
	var buf bytes.Buffer
	h := Header{Params: p, HashVersion: HashVersion, Generation: 1, Instance: "x", Lo: 0, Hi: p.SpaceSize()}
	if err := WriteDocTable(&buf, h, NewDocTable()); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadDocTable(&buf)
	if err != nil || got.Params != p {
		t.Fatalf("header params %+v (%v), want %+v", got.Params, err, p)
	}
	p.ExtraWindowWords = 5
	if p.Validate() == nil {
		t.Fatal("extra_window_words equal to window_words accepted")
	}
}
