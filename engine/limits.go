package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/store"
)

// limits are the counting limits a run resolves from the configuration and
// the archive: engine.min_shared, engine.df_cap and engine.extra_window_words,
// any of which may be auto (config.AutoMinShared, config.AutoDFCap,
// config.AutoExtraWindowWords). Every row of a run depends on them, so a
// run records them in its settings (settings) and the next run is full when
// they change.
type limits struct {
	minShared  int // a pair needs at least this many shared chunks
	dfCap      int // chunks in more documents are common text, not counted; 0: no cap
	extraWords int // the second chunk kind's window length; 0: none
}

// resolveLimits fixes the limits of the run about to start from the live
// archive.
func (e *Engine) resolveLimits(ctx context.Context) error {
	var n int
	if err := e.pool.QueryRow(ctx, `select count(*) from documents where deleted_at is null`).Scan(&n); err != nil {
		return fmt.Errorf("count documents: %w", err)
	}
	minShared := e.cfg.Engine.MinShared
	if minShared <= 0 {
		minShared = config.AutoMinShared(n)
	}
	e.limits.Store(&limits{minShared: minShared, dfCap: e.cfg.Engine.DFCapFor(n),
		extraWords: e.cfg.Engine.ExtraWindowWordsFor(n)})
	return nil
}

// params are the chunking parameters of the index: those the run about to
// start or the last run of this engine resolved (limits), or, before any,
// the configuration's (config.Engine.Params, no auto second chunk kind).
// A query must use queryParams.
func (e *Engine) params() invindex.Params {
	if l := e.limits.Load(); l != nil {
		return e.chunking(*l)
	}
	return e.cfg.Params()
}

// chunking are the configuration's chunking parameters with the second
// chunk kind l resolved.
func (e *Engine) chunking(l limits) invindex.Params {
	p := e.cfg.Params()
	p.ExtraWindowWords = l.extraWords
	return p
}

// queryParams are the chunking parameters of the committed index, which a
// text checked against it must be chunked with (queryLimits).
func (e *Engine) queryParams(ctx context.Context) (invindex.Params, error) {
	l, err := e.queryLimits(ctx)
	if err != nil {
		return invindex.Params{}, err
	}
	return e.chunking(l), nil
}

// queryLimits are the limits a query against the committed index must use:
// those of the last run of this engine, or, in a process that has not run
// one (plagd check, a restarted daemon), those the last committed run
// recorded; with no committed run, those of the live archive.
func (e *Engine) queryLimits(ctx context.Context) (limits, error) {
	if l := e.limits.Load(); l != nil {
		return *l, nil
	}
	gen, err := store.LastCommittedRun(ctx, e.pool)
	if err != nil {
		return limits{}, err
	}
	if gen != 0 {
		s, err := committedSettings(ctx, e.pool, gen)
		if err != nil {
			return limits{}, err
		}
		if l, ok := parseLimits(s); ok {
			e.limits.CompareAndSwap(nil, &l)
			return l, nil
		}
	}
	if err := e.resolveLimits(ctx); err != nil {
		return limits{}, err
	}
	return *e.limits.Load(), nil
}

// committedParams are the chunking parameters run gen resolved, read from
// its settings.
func (e *Engine) committedParams(ctx context.Context, gen int64) (invindex.Params, error) {
	s, err := committedSettings(ctx, e.pool, gen)
	if err != nil {
		return invindex.Params{}, err
	}
	l, _ := parseLimits(s)
	return e.chunking(l), nil
}

// parseLimits reads min_shared, df_cap and extra_window_words back from a
// run's settings.
func parseLimits(settings string) (limits, bool) {
	var l limits
	found := 0
	for _, f := range strings.Fields(settings) {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
		case k == "min_shared":
			l.minShared, found = n, found+1
		case k == "df_cap":
			l.dfCap, found = n, found+1
		case k == "extra_window_words":
			l.extraWords = n
		}
	}
	return l, found == 2 && l.minShared > 0
}

// MinShared is the min_shared the last run used (resolving auto).
func (e *Engine) MinShared() int {
	if l := e.limits.Load(); l != nil {
		return max(l.minShared, 1)
	}
	return 1
}

// DFCap is the df cap the last run used (resolving auto); 0: every chunk
// is counted.
func (e *Engine) DFCap() int {
	if l := e.limits.Load(); l != nil {
		return l.dfCap
	}
	return 0
}

// settings describes everything the stored results depend on.
func (e *Engine) settings() string {
	p := e.params()
	return fmt.Sprintf("window_words=%d extra_window_words=%d chunk_bits=%d strip_diacritics=%t hash=%d min_shared=%d top_k=%d df_cap=%d related_k=%d related_max_terms=%d",
		p.WindowWords, p.ExtraWindowWords, p.ChunkBits, p.StripDiacritics, invindex.HashVersion,
		e.MinShared(), e.cfg.Engine.TopK, e.DFCap(), e.cfg.Related.K, e.cfg.Related.MaxTerms)
}
