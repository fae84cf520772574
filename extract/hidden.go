package extract

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/plagd/plagd/disguise"
)

// hiddenMark is what a parser writes where it left hidden text out: a
// Unicode noncharacter (U+FDD0, set aside by the standard for a program's
// internal use and never assigned). normalize removes every mark and
// records the byte offset, in the final text, where it stood, so a
// HiddenText span survives the changes normalize makes (CRLF, controls) and
// any rewriting a parser does after marking (PDF line joining), as long as
// that rewriting keeps the mark's rune.
const hiddenMark = '\uFDD0'

// hiddenLog collects what a parser left out of one document, by reason.
// Options carries a pointer to it while the parser runs (set by runParser),
// so every format reports through opt.hide without a new return value.
type hiddenLog struct {
	chars   map[string]int // characters left out per reason
	runs    map[string]int // places text was left out, per reason
	order   []string       // reasons in the order first seen
	total   int
	written int // marks written
}

// hide records that the parser left out chars characters of hidden text
// for reason ("white text", "vanish") and returns the mark to write where
// they stood. A parser that calls hide for a run must write the mark it
// returns, once, or nothing (a run inside text that is left out anyway).
// It is safe on Options without a log (parsers called directly by tests).
func (o Options) hide(reason string, chars int) string {
	h := o.hidden
	if h == nil || chars <= 0 {
		return ""
	}
	if h.chars == nil {
		h.chars, h.runs = map[string]int{}, map[string]int{}
	}
	if _, ok := h.chars[reason]; !ok {
		h.order = append(h.order, reason)
	}
	h.chars[reason] += chars
	h.runs[reason]++
	h.total += chars
	h.written++
	return string(hiddenMark)
}

// hideMore adds chars characters to the run of hidden text for reason that
// the parser marked last, for parsers that meet a run a character at a
// time (RTF): the run stays one run with one mark.
func (o Options) hideMore(reason string, chars int) {
	h := o.hidden
	if h == nil || chars <= 0 || h.chars == nil {
		return
	}
	if _, ok := h.chars[reason]; !ok {
		return
	}
	h.chars[reason] += chars
	h.total += chars
}

// flags turns the log and the marks' positions in the final text into the
// document's HiddenText flag, or nil when nothing was left out. Marks in a
// document that left nothing out came from the file itself: they carry no
// finding and yield no span.
func (h *hiddenLog) flags(marks []int) []disguise.Flag {
	if h == nil || h.total == 0 {
		return nil
	}
	spans := make([]disguise.Span, 0, min(len(marks), disguise.MaxSpans))
	for _, at := range marks {
		if len(spans) == disguise.MaxSpans {
			break
		}
		if n := len(spans); n > 0 && spans[n-1].Start == at {
			continue // adjacent runs left out at one place are one span
		}
		spans = append(spans, disguise.Span{Start: at, End: at})
	}
	reasons := append([]string(nil), h.order...)
	sort.SliceStable(reasons, func(i, j int) bool { return h.chars[reasons[i]] > h.chars[reasons[j]] })
	parts := make([]string, 0, len(reasons))
	for _, r := range reasons {
		parts = append(parts, fmt.Sprintf("%s: %s in %s", r, plural(h.chars[r], "character"), plural(h.runs[r], "run")))
	}
	return []disguise.Flag{{
		Kind:   disguise.HiddenText,
		Count:  h.total,
		Spans:  spans,
		Detail: "left out as hidden: " + strings.Join(parts, "; "),
	}}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// rgb is a colour of text or of what lies under it.
type rgb struct{ r, g, b uint8 }

// white is the page of every format unless the file says otherwise.
var white = rgb{0xff, 0xff, 0xff}

// nearColorDiff is how far apart, in every channel, text and background
// may be for the text to count as invisible: white text (#FFFFFF) and
// near-white text down to #EFEFEF on a white page; Word's lightest grey
// ("White, Background 1, Darker 5%", #F2F2F2) is in, its next
// ("Darker 15%", #D9D9D9) out.
const nearColorDiff = 0x10

// near reports whether text of colour c cannot be told from background bg.
func (c rgb) near(bg rgb) bool {
	d := func(a, b uint8) bool { return max(a, b)-min(a, b) <= nearColorDiff }
	return d(c.r, bg.r) && d(c.g, bg.g) && d(c.b, bg.b)
}

// parseHexColor reads "RRGGBB", "#RRGGBB" or "#RGB".
func parseHexColor(s string) (rgb, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(s) == 3 {
		s = string([]byte{s[0], s[0], s[1], s[1], s[2], s[2]})
	}
	if len(s) != 6 {
		return rgb{}, false
	}
	var v [3]uint8
	for i := range v {
		hi, ok1 := hexDigit(s[2*i])
		lo, ok2 := hexDigit(s[2*i+1])
		if !ok1 || !ok2 {
			return rgb{}, false
		}
		v[i] = uint8(hi<<4 | lo)
	}
	return rgb{v[0], v[1], v[2]}, true
}

// namedColors are the colour names the formats use for text and
// highlighting that matter here: white, and the dark ones a white text
// may stand on (HTML's basic names; Word's highlight names).
var namedColors = map[string]rgb{
	"white": white, "black": {}, "navy": {0, 0, 0x80}, "darkblue": {0, 0, 0x8b}, "blue": {0, 0, 0xff},
	"darkgreen": {0, 0x64, 0}, "green": {0, 0x80, 0}, "darkred": {0x8b, 0, 0}, "red": {0xff, 0, 0},
	"maroon": {0x80, 0, 0}, "purple": {0x80, 0, 0x80}, "darkmagenta": {0x8b, 0, 0x8b}, "magenta": {0xff, 0, 0xff},
	"darkcyan": {0, 0x8b, 0x8b}, "cyan": {0, 0xff, 0xff}, "teal": {0, 0x80, 0x80}, "olive": {0x80, 0x80, 0},
	"darkyellow": {0x80, 0x80, 0}, "yellow": {0xff, 0xff, 0}, "gray": {0x80, 0x80, 0x80}, "grey": {0x80, 0x80, 0x80},
	"darkgray": {0x80, 0x80, 0x80}, "lightgray": {0xc0, 0xc0, 0xc0}, "silver": {0xc0, 0xc0, 0xc0},
}

// parseColor reads a hex colour or one of namedColors.
func parseColor(s string) (rgb, bool) {
	if c, ok := namedColors[strings.ToLower(strings.TrimSpace(s))]; ok {
		return c, true
	}
	return parseHexColor(s)
}

// hiddenChars counts the characters of hidden text s, as flags count them:
// letters, digits and marks, not spaces.
func hiddenChars(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}
