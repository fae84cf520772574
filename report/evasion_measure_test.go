package report

import (
	"context"
	"testing"

	"github.com/plagd/plagd/internal/evasion"
	"github.com/plagd/plagd/invindex"
)

// evasionCase is the evasion set's archive and clean essay
// (evasion.LicenceCase).
type evasionCase struct {
	sources []string
	essay   string
}

func loadEvasionCase(t *testing.T) evasionCase {
	t.Helper()
	c, err := evasion.LicenceCase(evasion.LicenceDir)
	if err != nil {
		t.Skipf("no licence texts: %v", err)
	}
	return evasionCase{sources: c.Sources, essay: c.Essay}
}

// evasionFigures are a text's similarity to the archive, in percent: the
// report's coverage (characters of the text in passages of either source)
// and the index's containment (distinct chunks of the text found in a
// source over all its distinct chunks).
type evasionFigures struct {
	coverage, containment float64
	covered               []bool // byte i of the text is in a passage
}

func measureEvasion(c evasionCase, text string) evasionFigures {
	p := invindex.DefaultParams()
	var srcs []SourceReport
	for _, s := range c.sources {
		srcs = append(srcs, SourceReport{Text: s})
	}
	rep := Build(context.Background(), p, text, srcs, Options{})
	tk := invindex.NewTokenizer(p)
	key := func(id uint32, check uint8) uint64 { return uint64(id)<<8 | uint64(check) }
	found := map[uint64]bool{}
	for _, s := range c.sources {
		_, ids, checks := tk.DocChunks(s)
		for i, id := range ids {
			found[key(id, checks[i])] = true
		}
	}
	_, ids, checks := tk.DocChunks(text)
	shared := 0
	for i, id := range ids {
		if found[key(id, checks[i])] {
			shared++
		}
	}
	return evasionFigures{100 * rep.Coverage, 100 * float64(shared) / float64(max(len(ids), 1)), covered(text, rep)}
}

// covered marks the bytes of text in passages of rep.
func covered(text string, rep Report) []bool {
	in := make([]bool, len(text))
	for _, s := range rep.Sources {
		for _, p := range s.Passages {
			for i := max(p.A().Start, 0); i < min(p.A().End, len(text)); i++ {
				in[i] = true
			}
		}
	}
	return in
}
