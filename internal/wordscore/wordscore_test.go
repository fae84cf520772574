package wordscore

import (
	"fmt"
	"strings"
	"testing"
)

// TestScoring checks the measure itself on hand-made damage, so that a
// perfect score in TestQuality means something.
func TestScoring(t *testing.T) {
	want := Words("An efficient office; the difficult flight of Příliš žluťoučký kůň.")
	cases := []struct {
		name, got    string
		word, bigram float64 // expected F1, to 4 places
		glued, split int
	}{
		{"identical, other layout", "AN EFFICIENT\noffice — the diffi\u00adcult? No: difficult flight of Pr\u030ci\u0301lis\u030c žluťoučký kůň", -1, -1, 0, 1},
		{"exact", "an efficient office the difficult flight of příliš žluťoučký kůň", 1, 1, 0, 0},
		{"ligature lost", "an ecient oce the dicult ight of příliš žluťoučký kůň", 0.6, 0.3333, 0, 0},
		{"glued", "an efficientoffice the difficult flight of příliš žluťoučký kůň", 0.8421, 0.7059, 1, 0},
		{"split", "an effi cient office the difficult flight of příliš žluťoučký kůň", 0.8571, 0.7368, 0, 1},
		{"order", "the difficult flight of příliš žluťoučký kůň an efficient office", 1, 0.8889, 0, 0},
	}
	for _, c := range cases {
		got := Words(c.got)
		w := F1(got, want).F1
		b := F1(Bigrams(got), Bigrams(want)).F1
		glued, split := BoundaryErrors(got, want)
		if c.word >= 0 && (fmt.Sprintf("%.4f", w) != fmt.Sprintf("%.4f", c.word) || fmt.Sprintf("%.4f", b) != fmt.Sprintf("%.4f", c.bigram)) {
			t.Errorf("%s: F1 words %.4f bigrams %.4f, want %.4f %.4f", c.name, w, b, c.word, c.bigram)
		}
		if len(glued) != c.glued || len(split) != c.split {
			t.Errorf("%s: glued %v split %v, want %d and %d", c.name, glued, split, c.glued, c.split)
		}
	}
}

// TestWordsIdeographic: Han and kana characters are words of their own, so a
// line break inside a Chinese clause costs nothing; Korean keeps its
// space-separated words, and Latin words next to Han characters stay whole.
func TestWordsIdeographic(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"常见问题", "常|见|问|题"},
		{"常见\n问题", "常|见|问|题"},
		{"Debian 软件包ですか", "debian|软|件|包|で|す|か"},
		{"데비안 패키지", "데비안|패키지"},
		{"GNU/Linux系统", "gnu|linux|系|统"},
		{"ﺣﺪﻳﺜﺎ حديثا", "حديثا|حديثا"}, // Arabic presentation forms fold to letters
		{"ﬁnal", "ﬁnal"},               // a Latin ligature stays: the fixtures look for it
	} {
		if got := strings.Join(Words(c.in), "|"); got != c.want {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
