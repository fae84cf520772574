package sandbox

import (
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/safetext"
)

// Bounds of the flags a child may return. A child that read a hostile
// file may have been made to say anything; what it says about the file
// reaches the database and the report, so it is cut to what an honest
// extraction produces: a few flags, disguise.MaxSpans spans each, within
// the text, and a short line of detail.
const (
	maxFlags      = 8
	maxFlagDetail = 300
	maxKindLen    = 40
)

// boundFlags returns flags cut to the bounds above for a text of textLen
// bytes: spans outside the text, inverted or beyond disguise.MaxSpans are
// dropped, negative counts become 0, kinds and details are made one line
// of valid UTF-8 (internal/safetext.Line).
func boundFlags(flags []disguise.Flag, textLen int) []disguise.Flag {
	if len(flags) == 0 {
		return nil
	}
	if len(flags) > maxFlags {
		flags = flags[:maxFlags]
	}
	out := make([]disguise.Flag, 0, len(flags))
	for _, f := range flags {
		g := disguise.Flag{
			Kind:   disguise.Kind(safetext.Line(string(f.Kind), maxKindLen)),
			Count:  max(f.Count, 0),
			Detail: safetext.Line(f.Detail, maxFlagDetail),
		}
		for _, s := range f.Spans {
			if len(g.Spans) == disguise.MaxSpans {
				break
			}
			if s.Start < 0 || s.End < s.Start || s.End > textLen {
				continue
			}
			g.Spans = append(g.Spans, s)
		}
		out = append(out, g)
	}
	return out
}
