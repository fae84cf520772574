package disguise

import (
	"reflect"
	"testing"
)

func TestOf(t *testing.T) {
	hidden := []Flag{{Kind: HiddenText, Count: 40, Spans: []Span{{0, 0}}, Detail: "white text"}}
	text := "the pla\u200bgia\u200brism was co\u200bpied"
	got := Of(hidden, text)
	if !reflect.DeepEqual(got, Merge(hidden, Scan(text))) || len(got) != 2 || got[0].Kind != HiddenText || got[1].Kind != Invisible {
		t.Fatalf("Of = %+v", got)
	}
	if Of(nil, "clean") != nil {
		t.Fatal("a clean text has no flags")
	}
}
