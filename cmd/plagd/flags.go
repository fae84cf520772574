package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/store"
)

// flagPlaces is how many places of each flag the text output lists.
const flagPlaces = 5

// writeFlags prints how text was disguised, before its report: each kind
// with its count and its first places, as character offsets like the
// passages below it (--json has every span, as byte offsets).
func writeFlags(w io.Writer, text string, flags []disguise.Flag) {
	if len(flags) == 0 {
		return
	}
	fmt.Fprintln(w, "  DISGUISED: the text was changed in ways a reader does not see")
	for _, f := range flags {
		what := f.Detail
		if what == "" {
			what = string(f.Kind)
		}
		fmt.Fprintf(w, "    %s: %d %s", f.Kind, f.Count, oneLine(what, 100))
		if n := min(len(f.Spans), flagPlaces); n > 0 {
			offs := make([]int, 0, 2*n)
			for _, s := range f.Spans[:n] {
				offs = append(offs, s.Start, s.End)
			}
			passage.RuneOffsets(text, offs)
			places := make([]string, n)
			for i := range n {
				if offs[2*i] == offs[2*i+1] {
					places[i] = strconv.Itoa(offs[2*i])
				} else {
					places[i] = strconv.Itoa(offs[2*i]) + "–" + strconv.Itoa(offs[2*i+1])
				}
			}
			more := ""
			if f.Count > n {
				more = ", …"
			}
			fmt.Fprintf(w, ", at %s%s", strings.Join(places, ", "), more)
		}
		fmt.Fprintln(w)
	}
}

// writeFlagSummary prints the status's flagged documents: how many, and
// per kind how many with the first ids.
func writeFlagSummary(w io.Writer, s store.FlagSummary) {
	if s.Documents == 0 {
		fmt.Fprintln(w, "Disguised:  none: no indexed text carries a flag")
		return
	}
	fmt.Fprintf(w, "Disguised:  %s whose text was disguised (plagd similar ID --passages shows where)\n", plural(s.Documents, "document"))
	for _, k := range s.Kinds {
		ids := make([]string, len(k.First))
		for i, id := range k.First {
			ids[i] = strconv.FormatInt(id, 10)
		}
		more := ""
		if k.Documents > len(k.First) {
			more = ", …"
		}
		fmt.Fprintf(w, "            %s: %s (%d in all): %s%s\n", k.Kind, plural(k.Documents, "document"), k.Count, strings.Join(ids, ", "), more)
	}
}
