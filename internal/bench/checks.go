package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/synth"
	"github.com/plagd/plagd/report"
)

// CheckFigures are the latencies of a teacher's check: one essay that is
// not in the archive, counted against the committed index and aligned with
// its top sources (Engine.CheckText, what the daemon's check page and
// POST /api/v1/check run), and, when asked, the same essay compared with
// the same archive by Debian's similarity tester (sim_text -p -S).
type CheckFigures struct {
	N          int     `json:"n"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	Max        float64 `json:"max_ms"`
	MeanSrc    float64 `json:"mean_sources"`
	WithSource int     `json:"found_a_planted_source"` // checks whose top sources hold a document they copy from
	Copiers    int     `json:"copiers"`                // checks that copy from a document of the archive
	// SimText is the median seconds of sim_text over SimTextRuns essays.
	SimText     float64 `json:"sim_text_s,omitempty"`
	SimTextRuns int     `json:"sim_text_runs,omitempty"`
}

// checkEssays are the generated documents checks use: the first n essays
// after the archive's own documents and the added ones, so that none is
// in the archive; they copy from archive documents as the corpus does.
func checkEssays(g *synth.Generator, docs, n int) []synth.Doc {
	var out []synth.Doc
	for i := docs + docs/2 + 1; len(out) < n; i++ {
		if d := g.Doc(i); d.Kind == "essay" {
			out = append(out, d)
		}
	}
	return out
}

// measureChecks runs n checks through eng and, with simTextRuns > 0,
// times sim_text on the first essays against the archive's stored texts.
func measureChecks(ctx context.Context, eng *engine.Engine, pool *pgxpool.Pool, g *synth.Generator, docs, n, simTextRuns int, w io.Writer) (*CheckFigures, error) {
	essays := checkEssays(g, docs, n)
	ext := map[int64]string{} // documents.id → external id, to find planted sources
	rows, err := pool.Query(ctx, `select id, external_id from documents where deleted_at is null`)
	if err != nil {
		return nil, err
	}
	var id int64
	var e string
	if _, err := pgx.ForEachRow(rows, []any{&id, &e}, func() error { ext[id] = e; return nil }); err != nil {
		return nil, err
	}
	live := map[string]bool{}
	for _, e := range ext {
		live[e] = true
	}
	f := &CheckFigures{N: len(essays)}
	ms := make([]float64, 0, len(essays))
	sources := 0
	for _, d := range essays {
		t := time.Now()
		rep, err := eng.CheckText(ctx, d.Text, 0, report.Options{})
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		ms = append(ms, float64(time.Since(t).Microseconds())/1000)
		sources += len(rep.Sources)
		var planted []string
		for _, src := range d.CopiedFrom {
			if e := fmt.Sprintf("synth-%08d", src); live[e] {
				planted = append(planted, e)
			}
		}
		if len(planted) > 0 {
			f.Copiers++
			for _, s := range rep.Sources {
				if slices.Contains(planted, ext[s.ID]) {
					f.WithSource++
					break
				}
			}
		}
	}
	slices.Sort(ms)
	f.P50, f.P99, f.Max = ms[len(ms)/2], ms[min(len(ms)-1, len(ms)*99/100)], ms[len(ms)-1]
	f.MeanSrc = float64(sources) / float64(len(essays))
	fmt.Fprintf(w, "  %d checks: p50 %.1f ms, p99 %.1f ms, max %.1f ms; %.1f sources each; %d of %d copiers found a planted source\n",
		f.N, f.P50, f.P99, f.Max, f.MeanSrc, f.WithSource, f.Copiers)
	if simTextRuns > 0 {
		secs, err := simText(ctx, pool, essays[:min(simTextRuns, len(essays))], w)
		if err != nil {
			return nil, err
		}
		f.SimText, f.SimTextRuns = secs, min(simTextRuns, len(essays))
		fmt.Fprintf(w, "  sim_text -p -S, same essays, same archive: median %.2f s per essay (%.0f× the p50 check)\n",
			secs, secs*1000/f.P50)
	}
	return f, nil
}

// simText writes the archive's stored texts to a temporary folder and times
// `sim_text -p -S -i` (the essay, "/", then every archive file, names read
// from standard input) for each essay; it returns the median seconds.
func simText(ctx context.Context, pool *pgxpool.Pool, essays []synth.Doc, w io.Writer) (float64, error) {
	if _, err := exec.LookPath("sim_text"); err != nil {
		return 0, fmt.Errorf("sim_text not found (apt-get install similarity-tester): %w", err)
	}
	dir, err := os.MkdirTemp("", "plagd-bench-simtext-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	rows, err := pool.Query(ctx, `select doc_id, body from document_texts order by doc_id`)
	if err != nil {
		return 0, err
	}
	var names strings.Builder
	var id int64
	var body string
	if _, err := pgx.ForEachRow(rows, []any{&id, &body}, func() error {
		p := filepath.Join(dir, fmt.Sprintf("a%d.txt", id))
		names.WriteString(p + "\n")
		return os.WriteFile(p, []byte(body), 0o644)
	}); err != nil {
		return 0, err
	}
	fmt.Fprintf(w, "  sim_text: archive written to %s\n", dir)
	var secs []float64
	for i, d := range essays {
		p := filepath.Join(dir, fmt.Sprintf("essay%d.txt", i))
		if err := os.WriteFile(p, []byte(d.Text), 0o644); err != nil {
			return 0, err
		}
		cmd := exec.CommandContext(ctx, "sim_text", "-p", "-S", "-i")
		cmd.Stdin = strings.NewReader(p + "\n/\n" + names.String())
		cmd.Stdout = io.Discard
		t := time.Now()
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("sim_text: %w", err)
		}
		secs = append(secs, time.Since(t).Seconds())
	}
	slices.Sort(secs)
	return secs[len(secs)/2], nil
}
