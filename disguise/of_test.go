package disguise

import "testing"

func TestOf(t *testing.T) {
	hidden := []Flag{{Kind: HiddenText, Count: 40, Spans: []Span{{0, 0}}, Detail: "white text"}}
	got := Of(hidden, "x\u200by")
	if len(got) != 2 || got[0].Kind != HiddenText || got[1].Kind != Invisible || got[1].Count != 1 {
		t.Fatalf("Of = %+v", got)
	}
	if Of(nil, "clean") != nil {
		t.Fatal("a clean text has no flags")
	}
}
