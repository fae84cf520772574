package extract

import (
	"fmt"
	"sort"
	"strings"

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
