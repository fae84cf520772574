package disguise

import (
	"reflect"
	"testing"
)

func TestMerge(t *testing.T) {
	a := []Flag{{Kind: Invisible, Count: 2, Spans: []Span{{10, 13}}, Detail: "zero-width spaces"}}
	b := []Flag{
		{Kind: Invisible, Count: 1, Spans: []Span{{4, 6}}, Detail: "soft hyphens"},
		{Kind: HiddenText, Count: 7, Spans: []Span{{20, 20}}, Detail: "white text"},
	}
	got := Merge(a, b)
	want := []Flag{
		{Kind: HiddenText, Count: 7, Spans: []Span{{20, 20}}, Detail: "white text"},
		{Kind: Invisible, Count: 3, Spans: []Span{{4, 6}, {10, 13}}, Detail: "zero-width spaces; soft hyphens"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Merge = %+v, want %+v", got, want)
	}
	if Merge(nil, nil) != nil {
		t.Fatal("Merge of nothing must be nil")
	}
	var many []Flag
	for i := 0; i < MaxSpans+5; i++ {
		many = append(many, Flag{Kind: Confusable, Count: 1, Spans: []Span{{MaxSpans + 5 - i, MaxSpans + 6 - i}}})
	}
	m := Merge(many, nil)
	if len(m) != 1 || m[0].Count != MaxSpans+5 || len(m[0].Spans) != MaxSpans || m[0].Spans[0].Start != 1 {
		t.Fatalf("Merge cut = count %d, %d spans, first %+v", m[0].Count, len(m[0].Spans), m[0].Spans[0])
	}
	if a[0].Count != 2 || len(a[0].Spans) != 1 {
		t.Fatal("Merge changed its input")
	}
}
