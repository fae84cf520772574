package engine

import (
	"context"

	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// templateSet is the registered templates (store.Template) as a run or a
// report applies them: for each kind of document, the chunk keys
// (chunk<<8 | fingerprint, the window keys of invindex) of the templates
// that apply to it, with the name of one template holding each. A
// document's chunks with such a key are not indexed for it; its report
// greys the windows as template text. Both chunk kinds (window_words and
// extra_window_words) are covered, since the keys come from DocChunks.
type templateSet struct {
	all    map[uint64]string            // templates for every document
	byKind map[string]map[uint64]string // templates for one kind
}

// newTemplateSet tokenises the templates with the index's parameters.
func newTemplateSet(p invindex.Params, ts []store.Template) *templateSet {
	if len(ts) == 0 {
		return nil
	}
	set := &templateSet{all: map[uint64]string{}, byKind: map[string]map[uint64]string{}}
	tok := invindex.NewTokenizer(p)
	for _, t := range ts {
		m := set.all
		if t.Kind != "" {
			if m = set.byKind[t.Kind]; m == nil {
				m = map[uint64]string{}
				set.byKind[t.Kind] = m
			}
		}
		_, chunks, checks := tok.DocChunks(t.Body)
		for i, c := range chunks {
			k := chunkKey(c, checks[i])
			if _, ok := m[k]; !ok {
				m[k] = t.Name
			}
		}
	}
	return set
}

// loadTemplates reads the templates a run applies (store.TemplatesAt the
// run's change-set boundary) or, with xmin 0, those registered now (for a
// report or a check).
func loadTemplates(ctx context.Context, q store.Querier, p invindex.Params, xmin uint64) (*templateSet, error) {
	var ts []store.Template
	var err error
	if xmin == 0 {
		ts, err = store.ListTemplates(ctx, q)
	} else {
		ts, err = store.TemplatesAt(ctx, q, xmin)
	}
	if err != nil {
		return nil, err
	}
	return newTemplateSet(p, ts), nil
}

func chunkKey(chunk uint32, check uint8) uint64 { return uint64(chunk)<<8 | uint64(check) }

// name is the template holding window key k for a document of kind, or "".
func (s *templateSet) name(kind string, k uint64) string {
	if s == nil {
		return ""
	}
	if n, ok := s.all[k]; ok {
		return n
	}
	return s.byKind[kind][k]
}

// applies reports whether any template applies to a document of kind.
func (s *templateSet) applies(kind string) bool {
	return s != nil && (len(s.all) > 0 || len(s.byKind[kind]) > 0)
}

// skip is the chunk filter of a document of kind (cluster.SourceText.Skip):
// nil when no template applies to it.
func (s *templateSet) skip(kind string) func(chunk uint32, check uint8) bool {
	if !s.applies(kind) {
		return nil
	}
	return func(chunk uint32, check uint8) bool { return s.name(kind, chunkKey(chunk, check)) != "" }
}

// names is the template lookup of a document of kind for its report
// (report.Options.Template): nil when no template applies to it.
func (s *templateSet) names(kind string) func(key uint64) string {
	if !s.applies(kind) {
		return nil
	}
	return func(key uint64) string { return s.name(kind, key) }
}

// applyTemplates makes opt show the template text of a document of kind
// as common text (report.Options.Template) and, unless opt.CountCommon,
// suppress its windows in the alignment, as the index leaves them out.
func (s *templateSet) applyTemplates(opt *report.Options, kind string) {
	names := s.names(kind)
	if names == nil {
		return
	}
	opt.Template = names
	if opt.CountCommon {
		return
	}
	prev := opt.Align.Suppress
	opt.Align.Suppress = func(key uint64) bool { return names(key) != "" || prev != nil && prev(key) }
}

// filterChunks returns the chunks (and their fingerprints) that drop does
// not reject, in new slices.
func filterChunks(chunks []uint32, checks []uint8, drop func(chunk uint32, check uint8) bool) ([]uint32, []uint8) {
	outC := make([]uint32, 0, len(chunks))
	outK := make([]uint8, 0, len(checks))
	for i, ch := range chunks {
		if !drop(ch, checks[i]) {
			outC, outK = append(outC, ch), append(outK, checks[i])
		}
	}
	return outC, outK
}
