package engine

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// Passages aligns document docID with the first sources documents of its
// similarity list (sources <= 0: all of it) and reports the passages they
// share, with coverage both ways and overall. Texts are the ones the last
// committed run chunked (document_texts), never extracted again, so the
// offsets match what was counted; report.Build aligns them. Nothing is
// stored. A document without a stored text is report.ErrNoText.
//
// With zero opt.Exclusions the report is raw: its Filter applies any
// exclusions, a minimum similarity and excluded sources to it afterwards,
// giving exactly what Passages gives with those exclusions, without
// aligning again.
//
// opt is used as given, but for its sentence seeds, which come from
// cfg's report.sentence_dice unless opt sets them; to show and leave out
// common text (the chunks over the df cap) as the similarities do, apply
// Engine.CommonText to it.
func Passages(ctx context.Context, pool *pgxpool.Pool, cfg config.Config, docID int64, sources int, opt report.Options) (report.Report, error) {
	rows, err := store.Similar(ctx, pool, docID)
	if err != nil {
		return report.Report{}, err
	}
	if sources > 0 && len(rows) > sources {
		rows = rows[:sources]
	}
	ids := []int64{docID}
	for _, r := range rows {
		ids = append(ids, r.OtherID)
	}
	texts, err := storedTexts(ctx, pool, ids)
	if err != nil {
		return report.Report{}, err
	}
	doc, ok := texts[docID]
	if !ok || doc.body == nil {
		return report.Report{}, fmt.Errorf("document %d has %w: it is pending, failed or deleted", docID, report.ErrNoText)
	}
	srcs := sourceReports(rows, texts)
	tpl, err := loadTemplates(ctx, pool, cfg.Params(), 0)
	if err != nil {
		return report.Report{}, err
	}
	tpl.applyTemplates(&opt, doc.head.Kind)
	opt.Align = reportAlign(cfg, opt.Align)
	rep := report.Build(ctx, cfg.Params(), *doc.body, srcs, opt)
	rep.Doc, rep.Chunks, rep.Header = docID, doc.chunks, doc.head
	if rep.Flags, err = store.ParseFlags(doc.flags); err != nil {
		return report.Report{}, fmt.Errorf("document %d: %w", docID, err)
	}
	return rep, ctx.Err()
}

// CheckText reports on a text that is not in the archive ("check this file
// now"): its chunks are counted against the committed index (Query), and
// the top sources (top <= 0: engine.top_k) are aligned with it as in
// Passages. Nothing is stored. Unless opt sets Common, the text's common
// text is found and, without opt.CountCommon, suppressed
// (CommonText.Apply), as in the similarities; so is the text of the
// templates registered for every kind of document.
// With zero opt.Exclusions the report is raw, for its Filter.
func (e *Engine) CheckText(ctx context.Context, text string, top int, opt report.Options) (report.Report, error) {
	// The text is chunked as the committed index was (a small archive's
	// has a second chunk kind: config.AutoExtraWindowWords).
	p, err := e.queryParams(ctx)
	if err != nil {
		return report.Report{}, err
	}
	tok := invindex.NewTokenizer(p)
	_, chunks, checks := tok.DocChunks(text)
	// A checked file has no kind: the templates registered for every
	// document apply to it, as to an archived document.
	tpl, err := loadTemplates(ctx, e.pool, p, 0)
	if err != nil {
		return report.Report{}, err
	}
	if skip := tpl.skip(""); skip != nil {
		chunks, checks = filterChunks(chunks, checks, skip)
	}
	var matches []QueryMatch
	var texts map[int64]storedText
	if e.cfg.Routing.Enabled {
		// Candidates from the routed feature index (few partitions), then
		// the chunk comparison for the figures.
		matches, texts, err = e.routedMatches(ctx, text, chunks, checks, top, tpl)
	} else {
		matches, err = e.Query(ctx, chunks, checks, top)
	}
	if err != nil {
		return report.Report{}, err
	}
	if opt.Common == nil {
		ct, err := e.CommonText(ctx)
		if err != nil {
			return report.Report{}, err
		}
		ct.Apply(&opt)
	}
	tpl.applyTemplates(&opt, "")
	if texts == nil {
		ids := make([]int64, len(matches))
		for i, m := range matches {
			ids[i] = m.ID
		}
		if texts, err = storedTexts(ctx, e.pool, ids); err != nil {
			return report.Report{}, err
		}
	}
	srcs := make([]report.SourceReport, 0, len(matches))
	for _, m := range matches {
		t, ok := texts[m.ID]
		if !ok || t.body == nil {
			continue
		}
		s := t.source(m.ID)
		s.Shared = m.Shared
		if len(chunks) > 0 {
			s.Similarity = float64(m.Shared) / float64(len(chunks))
		}
		if m.Chunks > 0 {
			s.Reverse = float64(m.Shared) / float64(m.Chunks)
		}
		srcs = append(srcs, s)
	}
	opt.Align = reportAlign(e.cfg, opt.Align)
	rep := report.Build(ctx, p, text, srcs, opt)
	rep.Chunks = len(chunks)
	// The text's own flags; a caller that read it from a file merges what
	// extraction found (disguise.Merge), as a run does (disguise.Of).
	rep.Flags = disguise.Of(nil, text)
	return rep, ctx.Err()
}

// CheckText is Engine.CheckText on a new engine, which loads the committed
// index from cfg.DataDir: for one-off callers (plagd check). A long-lived
// process keeps its Engine and calls the method, so that the index is
// loaded once.
func CheckText(ctx context.Context, pool *pgxpool.Pool, cfg config.Config, text string, top int, opt report.Options) (report.Report, error) {
	return NewEngine(cfg, pool, zerolog.Nop()).CheckText(ctx, text, top, opt)
}

// storedText is a document's stored text and header.
type storedText struct {
	head   archive.Header
	body   *string // nil: no stored text
	flags  []byte  // its flags column
	chunks int
}

// source is the SourceReport of document id with this text and header,
// without figures.
func (t storedText) source(id int64) report.SourceReport {
	return report.SourceReport{ID: id, Header: t.head, Text: *t.body}
}

// storedTexts reads the stored texts of ids (documents missing from the
// table are missing from the map).
func storedTexts(ctx context.Context, pool *pgxpool.Pool, ids []int64) (map[int64]storedText, error) {
	return storedTextsKnowing(ctx, pool, ids, nil)
}

// storedTextsKnowing is storedTexts for a caller that already holds some
// of the texts (known, by document; the similarity-index refresh's cache,
// during which no run commits): their bodies are not read again, only
// whether they are still stored.
func storedTextsKnowing(ctx context.Context, pool *pgxpool.Pool, ids []int64, known map[int64]string) (map[int64]storedText, error) {
	skip := make([]int64, 0, len(known))
	for id := range known {
		skip = append(skip, id)
	}
	rows, err := pool.Query(ctx, `
		select d.id, coalesce(d.external_id, ''), coalesce(d.title, ''), coalesce(d.author, ''), coalesce(d.kind, ''),
		       coalesce(d.year, 0), d.restricted, t.doc_id is not null,
		       case when d.id = any($2) then null else t.body end, t.flags, coalesce(s.chunks, 0)
		from documents d
		left join document_texts t on t.doc_id = d.id
		left join document_status s on s.doc_id = d.id
		where d.id = any($1)`, ids, skip)
	if err != nil {
		return nil, fmt.Errorf("read stored texts: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]storedText, len(ids))
	for rows.Next() {
		var id int64
		var stored bool
		var t storedText
		if err := rows.Scan(&id, &t.head.ExternalID, &t.head.Title, &t.head.Author, &t.head.Kind, &t.head.Year, &t.head.Restricted,
			&stored, &t.body, &t.flags, &t.chunks); err != nil {
			return nil, fmt.Errorf("read stored texts: %w", err)
		}
		if text, ok := known[id]; ok && stored && t.body == nil {
			t.body = &text
		}
		out[id] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read stored texts: %w", err)
	}
	return out, nil
}

// reportAlign is align with the report section's sentence seeds
// (report.sentence_dice; 0 there turns them off) unless the caller chose
// its own.
func reportAlign(cfg config.Config, align passage.Options) passage.Options {
	if align.SentenceDice == 0 {
		align.SentenceDice = -1
		if cfg.Report.SentenceDice > 0 {
			align.SentenceDice = cfg.Report.SentenceDice
		}
	}
	return align
}
