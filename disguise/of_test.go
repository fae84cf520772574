package disguise

import (
	"reflect"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testtext"
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

// BenchmarkOf is what a run pays per text for its flags: a thesis of
// 100,000 words, clean and with one word in fifty disguised (a zero-width
// space inside it).
func BenchmarkOf(b *testing.B) {
	clean := testtext.NewWordGen(1).Words("w", 100_000)
	ws := strings.Fields(clean)
	for i := 0; i < len(ws); i += 50 {
		ws[i] = ws[i][:1] + "\u200b" + ws[i][1:]
	}
	disguised := strings.Join(ws, " ")
	for _, c := range []struct{ name, text string }{{"clean", clean}, {"disguised", disguised}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				Of(nil, c.text)
			}
		})
	}
}
