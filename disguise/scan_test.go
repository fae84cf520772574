package disguise

import (
	"reflect"
	"strings"
	"testing"
)

func TestScan_Invisible(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		count      int
		spans      []Span
		detail     string
	}{
		{"clean", "plain text, nothing hidden", 0, nil, ""},
		{"zero-width spaces", "pla\u200bgia\u200b\u200brism", 3, []Span{{3, 6}, {9, 15}}, "invisible characters: zero-width space ×3"},
		{"soft hyphen inside a word", "pla\u00adgia\u00adrism", 2, []Span{{3, 5}, {8, 10}}, "invisible characters: soft hyphen ×2"},
		{"soft hyphen at a word's edge", "plagiarism\u00ad and", 0, nil, ""},
		{"joiner in a Latin word", "co\u200dpy", 1, []Span{{2, 5}}, "invisible characters: zero-width joiner ×1"},
		{"joiner in Persian", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", 0, nil, ""},
		{"bidi override", "a \u202ecipot\u202c b", 2, []Span{{2, 5}, {10, 13}}, "invisible characters: bidirectional control ×2"},
		{"mixed, frequent first", "a\u00adb\u200bc\u200bd", 3, []Span{{1, 3}, {4, 7}, {8, 11}}, "invisible characters: zero-width space ×2, soft hyphen ×1"},
		{"soft hyphen next to a zero-width space", "a\u200b\u00adb", 2, []Span{{1, 6}}, "invisible characters: soft hyphen ×1, zero-width space ×1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Scan(tc.text)
			if tc.count == 0 {
				if got != nil {
					t.Fatalf("Scan(%q) = %+v, want none", tc.text, got)
				}
				return
			}
			want := []Flag{{Kind: Invisible, Count: tc.count, Spans: tc.spans, Detail: tc.detail}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Scan(%q) = %+v, want %+v", tc.text, got, want)
			}
			for _, s := range got[0].Spans {
				if strings.Trim(tc.text[s.Start:s.End], "\u200b\u00ad\u200d\u202e\u202c") != "" {
					t.Fatalf("span %+v covers %q, not only invisible characters", s, tc.text[s.Start:s.End])
				}
			}
		})
	}
}

func TestScan_SpansCut(t *testing.T) {
	text := strings.Repeat("ab\u200bc ", MaxSpans+10)
	f := Scan(text)
	if len(f) != 1 || f[0].Count != MaxSpans+10 || len(f[0].Spans) != MaxSpans {
		t.Fatalf("Scan = %+v", f)
	}
}
