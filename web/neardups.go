package web

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// Near-duplicates (issue 7): documents whose 64-bit simhash differs from a
// text's in at most neardup.distance bits, that is the same text uploaded
// again or lightly edited. They are reported at upload, before any run
// (from the hash the upload records), first on the report and check pages,
// and at GET /api/v1/documents/{id}/near-duplicates. They carry headers and
// distances only, never texts, so a restricted near-duplicate is listed for
// every role and flagged, as a restricted source is in a report's table;
// its text stays behind the side-by-side view's own rule.

// nearDupResult is one near-duplicate query's answer: the candidates,
// nearest first, and why the check could not be made ("" when it was). A
// failed check never fails what asked for it (an upload, a report).
type nearDupResult struct {
	List []engine.NearDuplicate
	Err  string
}

// nearDupFailed is the message for a near-duplicate query that failed: the
// database's error is logged, the caller learns only that it failed.
const nearDupFailed = "the near-duplicate check could not be made (the server log has the details); the next run checks the document again"

// uploadNearDups is the upload-time check of a document just stored (or
// given new content) through package ingest, which compared its text with
// the archive and recorded its hash so that the next upload is compared
// with it before any run. Without a check (an unreadable file) the list is
// empty.
func (s *Server) uploadNearDups(res ingest.Result) nearDupResult {
	if res.NearDupsErr != nil {
		s.log.Error().Err(res.NearDupsErr).Int64("doc", res.ID).Msg("near-duplicate check at upload")
		return nearDupResult{List: nonNil(res.NearDups), Err: nearDupFailed}
	}
	return nearDupResult{List: nonNil(res.NearDups)}
}

// checkNearDups finds the near-duplicates of a text that is not stored.
func (s *Server) checkNearDups(ctx context.Context, text string) nearDupResult {
	dups, err := s.neardups.Check(ctx, text, 0)
	if err != nil {
		s.errEvent(ctx, err).Msg("near-duplicate check of a text")
		return nearDupResult{List: []engine.NearDuplicate{}, Err: "the near-duplicate check could not be made (the server log has the details)"}
	}
	return nearDupResult{List: nonNil(dups)}
}

// nearDupsOf finds the near-duplicates of stored document id from its
// stored hash. checked is false when it has no hash to compare yet (an
// integrator's insert not yet through a run, an unreadable file): that is
// not the same as having no near-duplicates, and the pages say so.
func (s *Server) nearDupsOf(ctx context.Context, id int64) (res nearDupResult, checked bool) {
	dups, checked, err := s.neardups.Of(ctx, id)
	if err != nil {
		s.errEvent(ctx, err).Int64("doc", id).Msg("near-duplicates of a document")
		return nearDupResult{List: []engine.NearDuplicate{}, Err: "the near-duplicates could not be read (the server log has the details)"}, true
	}
	return nearDupResult{List: nonNil(dups)}, checked
}

// nonNil turns a nil list into an empty one, so that JSON says [] (none)
// rather than null.
func nonNil[T any](d []T) []T {
	if d == nil {
		return []T{}
	}
	return d
}

// ---- the view ----

// nearDupRow is one near-duplicate on a page.
type nearDupRow struct {
	docHeader
	Distance int
	Pending  bool   // not yet through a run
	Link     string // its report
	Compare  string // the side-by-side view with it; "" when there is none yet
	Later    bool   // no side-by-side view until the next run has indexed both
}

// Apart says the distance in words: "same fingerprint", "1 bit apart".
func (r nearDupRow) Apart() string {
	switch r.Distance {
	case 0:
		return "same fingerprint"
	case 1:
		return "1 bit apart"
	}
	return strconv.Itoa(r.Distance) + " bits apart"
}

// nearDupSection is the "Near-duplicates" section of the report and check
// pages, and a file's verdict after an upload without scripts.
type nearDupSection struct {
	H         int // neardup.distance: the largest distance reported
	Rows      []nearDupRow
	Error     string
	Unchecked bool // the document has no hash yet: not "none found"
}

// nearDupView lays out res. compareBase is the page whose side-by-side
// views exist (/documents/12, /check/KEY), for the candidates among
// sources, its report's sources (the compare page serves only those);
// pending says the page's own document is not yet through a run, so a
// missing side-by-side view comes with the next one.
func (s *Server) nearDupView(res nearDupResult, compareBase string, sources []report.SourceReport, pending bool) *nearDupSection {
	v := &nearDupSection{H: s.cfg.NearDup.Distance, Error: res.Err}
	for _, d := range res.List {
		row := nearDupRow{docHeader: docHeader{ID: d.ID, Header: d.Head()}, Distance: d.Distance, Pending: d.Pending,
			Link: "/documents/" + strconv.FormatInt(d.ID, 10)}
		if compareBase != "" && slices.ContainsFunc(sources, func(x report.SourceReport) bool { return x.ID == d.ID }) {
			row.Compare = compareBase + "/compare/" + strconv.FormatInt(d.ID, 10)
		} else {
			row.Later = d.Pending || pending
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// uploadedRow is one file of an upload made without scripts, as the
// documents page shows it after the redirect.
type uploadedRow struct {
	ID   int64
	Name string
	Near *nearDupSection
}

// maxUploadedShown bounds the documents the page looks up after a form
// upload (the ids come from the query string).
const maxUploadedShown = 100

// uploadedRows reads ?uploaded=ID,ID,... (the documents a form upload just
// stored) with each one's near-duplicates as they are now: the hash the
// upload recorded finds the archive's copies and the batch's own. The ids
// are only documents anyone who may see the page may look up anyway.
func (s *Server) uploadedRows(ctx context.Context, param string) []uploadedRow {
	var out []uploadedRow
	for _, part := range strings.Split(param, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil || id <= 0 || len(out) == maxUploadedShown {
			continue
		}
		d, err := store.GetDocument(ctx, s.db, id)
		if err != nil {
			continue // deleted for good since, or a made-up id
		}
		name := d.Filename
		if name == "" {
			name = docHeader{ID: d.ID, Header: d.Head()}.Name()
		}
		res, checked := s.nearDupsOf(ctx, id)
		near := s.nearDupView(res, "", nil, true)
		near.Unchecked = !checked
		out = append(out, uploadedRow{ID: id, Name: name, Near: near})
	}
	return out
}

// ---- the JSON API ----

// nearDupList is GET /api/v1/documents/{id}/near-duplicates.
type nearDupList struct {
	DocumentID int64 `json:"document_id"`
	// Distance is neardup.distance: candidates differ in at most this many
	// bits of 64.
	Distance int `json:"distance"`
	// Checked is false while the document has no simhash to compare (not
	// yet through a run and not uploaded through plagd, or unreadable).
	Checked        bool                   `json:"checked"`
	NearDuplicates []engine.NearDuplicate `json:"near_duplicates"`
}

// apiNearDuplicates lists the near-duplicates of document {id}.
func (s *Server) apiNearDuplicates(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r, "id")
	if !ok {
		s.apiDocFail(w, r, noDocument(r.PathValue("id")))
		return
	}
	ctx := r.Context()
	if _, err := store.GetDocument(ctx, s.db, id); err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	dups, checked, err := s.neardups.Of(ctx, id)
	if err != nil {
		s.apiDocFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, nearDupList{DocumentID: id, Distance: s.cfg.NearDup.Distance, Checked: checked,
		NearDuplicates: nonNil(dups)})
}
