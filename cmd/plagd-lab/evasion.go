package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/internal/evasion"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/report"
)

// newEvasionCmd is `plagd-lab evasion`: the evasion set as files, and its
// table (docs/QUALITY.md, "Evasion").
func newEvasionCmd(_ *cli.Globals) *cobra.Command {
	var out, dir string
	cmd := &cobra.Command{
		Use:   "evasion [--out DIR]",
		Short: "Write the evasion set and measure it (similarity of each disguised essay, flags)",
		Long: `Builds the evasion set from the licence texts in --licences (a clean essay that
copies about 44 % of its characters from two of them) and, for each disguise of
internal/evasion, prints the essay's coverage by passages, the coverage a
perfect checker reports (the clean coverage carried through the disguise,
which may add characters), and the index's containment (distinct chunks found
in a source) for the clean and the disguised essay, and the flags
disguise.Scan raises. With --out, writes the sources,
the archive's other texts, the clean essay and each disguised essay to DIR
as .txt files, to ingest and check with plagd.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := evasion.LicenceCase(dir)
			if err != nil {
				return err
			}
			write := func(name, text string) error {
				if out == "" {
					return nil
				}
				return os.WriteFile(filepath.Join(out, name+".txt"), []byte(text), 0o644)
			}
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return err
				}
				for i, s := range c.Sources {
					if err := write(fmt.Sprintf("source-%d", i+1), s); err != nil {
						return err
					}
				}
				for i, s := range c.Others {
					if err := write(fmt.Sprintf("other-%d", i+1), s); err != nil {
						return err
					}
				}
				if err := write("essay-clean", c.Essay); err != nil {
					return err
				}
			}
			clean, covered := measure(cmd.Context(), c, c.Essay)
			fmt.Printf("%-45s %9s %9s %12s  %s\n", "variant", "coverage", "expected", "containment", "flags")
			fmt.Printf("%-45s %8.1f%% %8.1f%% %11.1f%%\n", "clean", clean[0], clean[0], clean[1])
			for i, v := range evasion.Variants() {
				text := v.Apply(c.Essay, rand.New(rand.NewPCG(uint64(i), 18)))
				if err := write(fmt.Sprintf("essay-%02d", i+1), text); err != nil {
					return err
				}
				got, _ := measure(cmd.Context(), c, text)
				want := evasion.Expected(v, c.Essay, covered, clean[0], rand.New(rand.NewPCG(uint64(i), 18)))
				var kinds []string
				for _, f := range disguise.Scan(text) {
					kinds = append(kinds, fmt.Sprintf("%s(%d)", f.Kind, f.Count))
				}
				fmt.Printf("%-45s %8.1f%% %8.1f%% %11.1f%%  %s\n", v.Name, got[0], want, got[1], strings.Join(kinds, " "))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "directory to write the set to (none: only measure)")
	f.StringVar(&dir, "licences", evasion.LicenceDir, "directory of the licence texts")
	return cmd
}

// measure returns text's coverage by passages of the case's sources and its
// containment in their chunks, in percent, and which of its bytes the
// passages cover.
func measure(ctx context.Context, c evasion.Case, text string) ([2]float64, []bool) {
	p := invindex.DefaultParams()
	var srcs []report.SourceReport
	for _, s := range c.Sources {
		srcs = append(srcs, report.SourceReport{Text: s})
	}
	rep := report.Build(ctx, p, text, srcs, report.Options{})
	tk := invindex.NewTokenizer(p)
	found := map[uint64]bool{}
	for _, s := range c.Sources {
		_, ids, checks := tk.DocChunks(s)
		for i, id := range ids {
			found[uint64(id)<<8|uint64(checks[i])] = true
		}
	}
	_, ids, checks := tk.DocChunks(text)
	shared := 0
	for i, id := range ids {
		if found[uint64(id)<<8|uint64(checks[i])] {
			shared++
		}
	}
	covered := make([]bool, len(text))
	for _, s := range rep.Sources {
		for _, p := range s.Passages {
			for i := max(p.A().Start, 0); i < min(p.A().End, len(text)); i++ {
				covered[i] = true
			}
		}
	}
	return [2]float64{100 * rep.Coverage, 100 * float64(shared) / float64(max(len(ids), 1))}, covered
}
