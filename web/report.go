package web

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
	"github.com/plagd/plagd/store"
)

// The report pages show a raw report (engine.Passages or CheckText without
// exclusions, aligned once and cached) through the filters of the query
// string (report.Report.Filter, cheap): a teacher toggling "exclude quotes"
// never waits for an alignment. Texts of restricted documents reach only
// admins; every header, restricted flag included, is read fresh on each
// request, because a cached report may be older than a change of the flag.

// reportCacheBytes bounds the texts the report cache holds in all: a
// thesis with a hundred thesis-sized sources is some 20 MB.
const reportCacheBytes = 512 << 20

// reportKey names a raw report: the document, and the last committed run,
// whose texts and similarities it was built from.
type reportKey struct {
	doc, run int64
	common   bool // common text counted: aligned without suppressing it
}

// reportCache keeps raw reports, least recently used evicted first, at
// most max of them and reportCacheBytes of text. Concurrent requests for a
// report not yet cached wait for one alignment. Safe for concurrent use.
type reportCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	lru      *list.List // of *reportEntry, most recent first
	items    map[reportKey]*list.Element
	building map[reportKey]*reportBuild
	builds   int // alignments started, for tests and logs
}

type reportEntry struct {
	key  reportKey
	rep  report.Report
	size int
}

type reportBuild struct {
	done chan struct{}
	rep  report.Report
	err  error
}

func newReportCache(n int) *reportCache {
	return &reportCache{max: max(n, 1), maxBytes: reportCacheBytes, lru: list.New(),
		items: map[reportKey]*list.Element{}, building: map[reportKey]*reportBuild{}}
}

// get returns the report of key, building it with build when it is not
// cached. A build is not cut short when the request that started it goes
// away: the next request for the same report finds it done. Errors are not
// cached.
func (c *reportCache) get(ctx context.Context, key reportKey, build func(context.Context) (report.Report, error)) (report.Report, error) {
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		c.lru.MoveToFront(el)
		rep := el.Value.(*reportEntry).rep
		c.mu.Unlock()
		return rep, nil
	}
	b, running := c.building[key]
	if !running {
		b = &reportBuild{done: make(chan struct{})}
		c.building[key] = b
		c.builds++
		go func() {
			bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reportBuildTimeout)
			defer cancel()
			b.rep, b.err = build(bctx)
			c.mu.Lock()
			delete(c.building, key)
			if b.err == nil {
				c.add(key, b.rep)
			}
			c.mu.Unlock()
			close(b.done)
		}()
	}
	c.mu.Unlock()
	select {
	case <-b.done:
		return b.rep, b.err
	case <-ctx.Done():
		return report.Report{}, ctx.Err()
	}
}

// reportBuildTimeout bounds one alignment of a document with its sources.
const reportBuildTimeout = 5 * time.Minute

// add stores rep under key; c.mu is held.
func (c *reportCache) add(key reportKey, rep report.Report) {
	e := &reportEntry{key: key, rep: rep, size: reportSize(rep)}
	c.items[key] = c.lru.PushFront(e)
	c.bytes += e.size
	for c.lru.Len() > 1 && (c.lru.Len() > c.max || c.bytes > c.maxBytes) {
		old := c.lru.Back()
		c.lru.Remove(old)
		oe := old.Value.(*reportEntry)
		delete(c.items, oe.key)
		c.bytes -= oe.size
	}
}

// stats are the number of cached reports and of alignments started.
func (c *reportCache) stats() (cached, builds int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.builds
}

// reportSize is about what a report holds in memory: its texts.
func reportSize(rep report.Report) int {
	n := len(rep.Text)
	for _, s := range rep.Sources {
		n += len(s.Text) + 64*len(s.Passages)
	}
	return n
}

// checkCacheBytes bounds the texts the check cache holds in all.
const checkCacheBytes = 256 << 20

// checkEntry is one "check a file now" result: the raw report of a text
// that is not in the archive, for its owner only.
type checkEntry struct {
	Key      string
	Owner    int64 // users.id
	Filename string
	Created  time.Time
	Report   report.Report
	// Near are the archive's near-duplicates of the text, found when it
	// was checked.
	Near nearDupResult
	size int
}

// checkCache keeps check results for ttl after they were made, at most max
// of them and checkCacheBytes of text, oldest evicted first. Only the
// owner gets an entry back. Safe for concurrent use.
type checkCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	ttl      time.Duration
	order    *list.List // of *checkEntry, oldest at the back
	items    map[string]*list.Element
	now      func() time.Time
}

func newCheckCache(n int, ttl time.Duration) *checkCache {
	return &checkCache{max: max(n, 1), maxBytes: checkCacheBytes, ttl: ttl, order: list.New(),
		items: map[string]*list.Element{}, now: time.Now}
}

// put stores a report and the near-duplicates of its text for owner under
// a new random key and returns it.
func (c *checkCache) put(owner int64, filename string, rep report.Report, near nearDupResult) *checkEntry {
	var b [18]byte
	_, _ = rand.Read(b[:])
	e := &checkEntry{Key: base64.RawURLEncoding.EncodeToString(b[:]), Owner: owner, Filename: filename,
		Report: rep, Near: near, size: reportSize(rep)}
	c.mu.Lock()
	defer c.mu.Unlock()
	e.Created = c.now()
	c.expire(e.Created)
	c.items[e.Key] = c.order.PushFront(e)
	c.bytes += e.size
	for c.order.Len() > 1 && (c.order.Len() > c.max || c.bytes > c.maxBytes) {
		c.remove(c.order.Back())
	}
	return e
}

// get returns owner's entry key; someone else's, an expired or an unknown
// key are all "not found".
func (c *checkCache) get(key string, owner int64) (*checkEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(c.now())
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*checkEntry)
	if e.Owner != owner || owner == 0 {
		return nil, false
	}
	return e, true
}

// expire drops the entries older than ttl; c.mu is held.
func (c *checkCache) expire(now time.Time) {
	for el := c.order.Back(); el != nil; el = c.order.Back() {
		if now.Sub(el.Value.(*checkEntry).Created) < c.ttl {
			return
		}
		c.remove(el)
	}
}

func (c *checkCache) remove(el *list.Element) {
	e := el.Value.(*checkEntry)
	c.order.Remove(el)
	delete(c.items, e.Key)
	c.bytes -= e.size
}

// ---- filters ----

// reportQuery is what the query string of a report page or API call asks
// for: min (percent), exclude (repeated source ids, or comma-separated),
// quotes, bib, blocks and common ("1"/"0": leave it out of the figures;
// quotes, bib and common default to 1, blocks to quotes' value) and source
// (the source the text view focuses on).
type reportQuery struct {
	Min     float64 // percent, as typed
	MinText string  // as typed, for the form
	Words   int     // passages shorter than this many words are left out; 0: none
	Exclude []int64
	Quotes  bool
	Bib     bool
	Blocks  bool
	Common  bool // leave common text out (the default); false counts it
	Source  int64
	// Versions counts the document's near-duplicates (earlier versions of
	// the same submission, the same text uploaded twice) as sources; by
	// default they are listed apart and left out of the figures.
	Versions bool
	// VersionIDs are the sources report.IsVersion takes for earlier
	// versions or near-duplicates (report.Report.Versions), filled in by
	// the handler from the raw report (not part of the address).
	VersionIDs []int64
}

// parseReportQuery reads the filters; a value that makes no sense is
// errBadRequest with a message saying what is expected.
func parseReportQuery(q url.Values) (reportQuery, error) {
	rq := reportQuery{Quotes: true, Bib: true, Common: true}
	if v := strings.TrimSpace(q.Get("min")); v != "" {
		f, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSuffix(v, "%"), ",", "."), 64)
		if err != nil || f < 0 || f > 100 || f != f {
			return rq, problemf(errBadRequest, "min %q is not a percentage: give a number from 0 to 100, such as 5", v)
		}
		rq.Min, rq.MinText = f, strconv.FormatFloat(f, 'f', -1, 64)
	}
	if v := strings.TrimSpace(q.Get("words")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 10000 {
			return rq, problemf(errBadRequest, "words %q is not a number of words: give a whole number from 0 to 10000, such as 8", v)
		}
		rq.Words = n
	}
	for _, v := range q["exclude"] {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			id, err := strconv.ParseInt(part, 10, 64)
			if err != nil || id <= 0 {
				return rq, problemf(errBadRequest, "exclude %q is not a document id", part)
			}
			if !slices.Contains(rq.Exclude, id) {
				rq.Exclude = append(rq.Exclude, id)
			}
		}
	}
	var err error
	if rq.Quotes, err = anyFlag(q, "quotes", true); err != nil {
		return rq, err
	}
	if rq.Bib, err = anyFlag(q, "bib", true); err != nil {
		return rq, err
	}
	if rq.Blocks, err = anyFlag(q, "blocks", rq.Quotes); err != nil {
		return rq, err
	}
	if rq.Common, err = anyFlag(q, "common", true); err != nil {
		return rq, err
	}
	if rq.Versions, err = anyFlag(q, "versions", false); err != nil {
		return rq, err
	}
	if v := strings.TrimSpace(q.Get("source")); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return rq, problemf(errBadRequest, "source %q is not a document id", v)
		}
		rq.Source = id
	}
	return rq, nil
}

// anyFlag reads a flag given possibly more than once: a form sends its
// checkbox's "1" followed by a hidden "0", so that an unticked box still
// says 0; any true value wins. Absent or empty: def.
func anyFlag(q url.Values, name string, def bool) (bool, error) {
	seen := false
	for _, v := range q[name] {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "on", "true", "yes":
			return true, nil
		case "0", "off", "false", "no":
			seen = true
		case "":
		default:
			return def, problemf(errBadRequest, "%s must be 1 or 0, got %q", name, v)
		}
	}
	if seen {
		return false, nil
	}
	return def, nil
}

func (rq reportQuery) exclusions() passage.Exclusions {
	return passage.Exclusions{Quotes: rq.Quotes, Bibliography: rq.Bib, BlockQuotes: rq.Blocks, Common: rq.Common}
}

// isDefault reports whether rq asks for the default filters: those the
// similarity index is defined with (report.IndexFilter).
func (rq reportQuery) isDefault() bool {
	return rq.Min == 0 && len(rq.Exclude) == 0 && rq.Words == 0 && rq.Quotes && rq.Bib && rq.Blocks && rq.Common && !rq.Versions
}

// filter is the daemon's filter for the query.
func (rq reportQuery) filter() report.Filter {
	ex := slices.Clone(rq.Exclude)
	if !rq.Versions {
		ex = append(ex, rq.VersionIDs...)
	}
	return report.Filter{MinSimilarity: rq.Min / 100, ExcludeSources: ex, Exclusions: rq.exclusions(), MinWords: rq.Words}
}

// values is the query in its canonical form, without the defaults;
// withSources false leaves out min, exclude and source (what a side-by-side
// view does not use).
func (rq reportQuery) values(withSources bool) url.Values {
	v := url.Values{}
	if withSources {
		if rq.MinText != "" && rq.Min > 0 {
			v.Set("min", rq.MinText)
		}
		for _, id := range rq.Exclude {
			v.Add("exclude", strconv.FormatInt(id, 10))
		}
		if rq.Source != 0 {
			v.Set("source", strconv.FormatInt(rq.Source, 10))
		}
	}
	if !rq.Quotes {
		v.Set("quotes", "0")
	}
	if !rq.Bib {
		v.Set("bib", "0")
	}
	if rq.Blocks != rq.Quotes {
		v.Set("blocks", flag01(rq.Blocks))
	}
	if !rq.Common {
		v.Set("common", "0")
	}
	if rq.Words > 0 {
		v.Set("words", strconv.Itoa(rq.Words))
	}
	if rq.Versions {
		v.Set("versions", "1")
	}
	return v
}

func flag01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// withQuery appends an encoded query to a path.
func withQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// ---- headers read fresh ----

// docHeader is what the archive says about a document now.
type docHeader struct {
	ID int64
	archive.Header
}

// Name is how a document is called on a page: its title, else its
// external id, else its number.
func (h docHeader) Name() string {
	switch {
	case h.Title != "":
		return h.Title
	case h.ExternalID != "":
		return h.ExternalID
	}
	return "Document " + strconv.FormatInt(h.ID, 10)
}

// freshen returns rep (filtered, so its Sources slice is its own) with the
// headers of its document and sources as they are now. A document missing
// from the table (deleted for good since the report was made) is treated as
// restricted, so that its text is not shown from a cache.
func freshen(ctx context.Context, db store.Querier, rep report.Report) (report.Report, error) {
	ids := make([]int64, 0, len(rep.Sources)+1)
	if rep.Doc != 0 {
		ids = append(ids, rep.Doc)
	}
	for _, s := range rep.Sources {
		ids = append(ids, s.ID)
	}
	hs, err := store.Headers(ctx, db, ids)
	if err != nil {
		return rep, err
	}
	if rep.Doc != 0 {
		h, ok := hs[rep.Doc]
		if !ok {
			h = archive.Header{Restricted: true}
		}
		rep.ExternalID, rep.Title, rep.Author, rep.Kind, rep.Year, rep.Restricted = h.ExternalID, h.Title, h.Author, h.Kind, h.Year, h.Restricted
	}
	srcs := slices.Clone(rep.Sources)
	for i := range srcs {
		h, ok := hs[srcs[i].ID]
		if !ok {
			srcs[i].Restricted = true
			continue
		}
		s := &srcs[i]
		s.ExternalID, s.Title, s.Author, s.Kind, s.Year, s.Restricted = h.ExternalID, h.Title, h.Author, h.Kind, h.Year, h.Restricted
	}
	rep.Sources = srcs
	return rep, nil
}

func sourceHeader(s report.SourceReport) docHeader {
	return docHeader{ID: s.ID, Header: s.Header}
}

func reportHeader(rep report.Report) docHeader {
	return docHeader{ID: rep.Doc, Header: rep.Header}
}

// ---- the view of a report ----

// paletteSize is the number of highlight colours (report.css .c0 … .c11);
// sources take them in rank order, so a source keeps its colour whatever
// the filters leave out.
const paletteSize = 12

// sourceRow is one source in the table of a report page.
type sourceRow struct {
	docHeader
	Rank       int // 1-based, in the raw report
	Color      int
	Similarity float64 // this → source
	Reverse    float64 // source → this
	Shared     int
	Passages   int
	CoverageA  float64 // share of this document from the source
	CoverageB  float64 // share of the source found in this document
	Excluded   bool    // left out by the teacher: listed, not counted
	// OnlyExcluded: its passages all lie in excluded text (quotations,
	// the bibliography): listed, not counted.
	OnlyExcluded bool
	Link         string // the source's own report
	Compare      string // the side-by-side view with it
	Only         string // this report with only its passages highlighted
}

// segment is a run of text shown alike: plain, highlighted (a passage),
// or greyed (left out of the figures).
type segment struct {
	Text    string
	Class   string // CSS classes; "" for plain text
	Title   string
	Href    string
	Anchors []string // element ids placed before the run
	Label   string   // passage number(s) starting here (side by side)
	// Marker, when set, are the classes of an empty mark placed before
	// the run: where hidden text was left out (flagMarks), titled
	// MarkerTitle.
	Marker      string
	MarkerTitle string
}

// reportView is the data of report.html, for a stored document and for a
// check alike.
type reportView struct {
	pageBase
	Base     string    // the page's own path: /documents/12 or /check/KEY
	Doc      docHeader // for a check: no id
	Check    *checkEntry
	Status   string // indexed, pending, failed, deleted; "" for a check
	Error    string // why it failed
	Filename string
	Notice   string // a note above the report (a pending document's previous version)
	// Flags is the warning box at the top: how the text was disguised
	// (report.Report's Flags); nil when it was not.
	Flags    []flagLine
	NoReport string // why there is no report; then nothing else is shown
	// Wait says, on a pending document's page, when the next run is due;
	// app.js keeps it current and loads the report when the run commits.
	Wait string
	// NearDups is the near-duplicates section, shown first; nil where it
	// does not apply (a failed or deleted document, a partial=1 region).
	NearDups *nearDupSection
	// Related is the related-documents panel, after the sources; nil
	// where it does not apply (a check, a failed or deleted document); in
	// a partial=1 region only a placeholder that report.js fills.
	Related *relatedSection
	Q       reportQuery
	Region  *reportRegion
	Edit    bool // staff: the metadata form and the delete button
	Print   time.Time
	// Review is what teachers decided about the report (saved filters,
	// reviewed with a note); nil for a check. SavedInUse: the page shows
	// the saved filters because its address asked for none.
	Review     *store.ReportReview
	SavedInUse bool
	// FiltersNow is the canonical query of the filters shown, which
	// "Save these filters" stores.
	FiltersNow string
	Done       string // what the last action did ("Filters saved.")
}

// reportRegion is the part of the page the filters change: JS fetches it
// alone (partial=1) and swaps it in, so figures come from one place.
type reportRegion struct {
	Query    string // the canonical filter query, for the address bar
	PDF      string // the printed report with these filters; "" for a check
	Coverage float64
	// Default: the filters are the default ones, so Coverage is the
	// similarity index; otherwise Index is the index, shown beside (nil:
	// not known here, for a report that counts common text, whose raw
	// report cannot give it, of a document whose index is still queued).
	Default       bool
	Index         *float64
	Chunks        int
	Sources       []sourceRow // at or above the minimum, rank order, excluded ones included
	Counted       int         // sources that count (not excluded, with a passage)
	Listed        int         // the sources listed, the earlier versions included when they are counted
	Scattered     []sourceRow // sources sharing chunks but no passage: listed apart, not counted
	Versions      []sourceRow // near-duplicates (earlier versions): listed apart, counted only when asked
	CountVersions bool
	VersionsLink  string // the report with the versions counted, or left out again
	Passages      int    // passages of the sources that count
	Below         int    // sources under the minimum, not listed
	MinText       string
	Exclusions    string // "quotations, block quotes and the bibliography are left out", or ""
	Focus         *sourceRow
	All           string // this report with every source highlighted (when focused)
	TextHidden    bool   // a restricted document, for someone not an admin
	Text          []segment
	Legend        []sourceRow // sources with passages in the text
	Common        int         // stretches of common text in the document, template text not included
	Templates     []string    // the registered templates whose text the document carries, by name
	CountCommon   bool        // the teacher counts common text
	Partial       bool
}

// pdfLink is the address of the printed report of a stored document's
// page base with the filters of rq; "" for a check, which has none.
func pdfLink(base string, rq reportQuery) string {
	if !strings.HasPrefix(base, "/documents/") {
		return ""
	}
	v := rq.values(true)
	v.Del("source")
	// Always one filter named, so the file follows what the page shows
	// even where saved filters would apply to an address without any.
	v.Set("quotes", flag01(rq.Quotes))
	return withQuery(base+"/report.pdf", v)
}

// exclusionNote says in words what a filter leaves out.
func exclusionNote(ex passage.Exclusions) string {
	var parts []string
	if ex.Quotes {
		parts = append(parts, "quotations")
	}
	if ex.BlockQuotes {
		parts = append(parts, "block quotes")
	}
	if ex.Bibliography {
		parts = append(parts, "the bibliography")
	}
	if ex.Common {
		parts = append(parts, "common text")
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// withWords adds a minimum passage length to the words of exclusionNote.
func withWords(note string, words int) string {
	if words <= 0 {
		return note
	}
	w := "matches shorter than " + strconv.Itoa(words) + " words"
	if note == "" {
		return w
	}
	return note + "; " + w
}

// buildRegion filters the raw report (whose headers are current) as rq
// asks and lays it out. base is the page path, seeText whether the caller
// may read the document's text.
func buildRegion(raw report.Report, rq reportQuery, base string, seeText bool) *reportRegion {
	ex := rq.exclusions()
	// Per-source figures do not depend on the other sources: one pass
	// without excluded sources gives the rows, one with them the total.
	shown := raw.Filter(report.Filter{MinSimilarity: rq.Min / 100, Exclusions: ex, MinWords: rq.Words})
	final := raw.Filter(rq.filter())
	rank := make(map[int64]int, len(raw.Sources))
	for i, s := range raw.Sources {
		rank[s.ID] = i
	}
	compareQuery := rq.values(false)
	passages := 0
	for _, s := range final.Sources {
		passages += len(s.Passages)
	}
	reg := &reportRegion{Query: rq.values(true).Encode(), PDF: pdfLink(base, rq), Coverage: final.Coverage,
		Default: rq.isDefault(), Chunks: raw.Chunks, Passages: passages,
		Below: len(raw.Sources) - len(shown.Sources), MinText: rq.MinText, Exclusions: withWords(exclusionNote(ex), rq.Words),
		TextHidden: !seeText, CountCommon: !rq.Common}
	for _, c := range raw.Common {
		switch {
		case c.Template == "":
			reg.Common++
		case !slices.Contains(reg.Templates, c.Template):
			reg.Templates = append(reg.Templates, c.Template)
		}
	}
	if x, ok := rawIndex(raw, rq, final); ok {
		reg.Index = &x
	}
	reg.CountVersions = rq.Versions
	flipped := rq
	flipped.Versions = !rq.Versions
	reg.VersionsLink = withQuery(base, flipped.values(true))
	unfocused := rq
	unfocused.Source = 0
	reg.All = withQuery(base, unfocused.values(true)) + "#text"
	rows := make(map[int64]*sourceRow, len(shown.Sources))
	for _, s := range shown.Sources {
		focused := rq
		focused.Source = s.ID
		i := rank[s.ID]
		row := sourceRow{docHeader: sourceHeader(s), Rank: i + 1, Color: i % paletteSize,
			Similarity: s.Similarity, Reverse: s.Reverse, Shared: s.Shared, Passages: len(s.Passages),
			CoverageA: s.CoverageA, CoverageB: s.CoverageB, Excluded: slices.Contains(rq.Exclude, s.ID),
			Link:    "/documents/" + strconv.FormatInt(s.ID, 10),
			Compare: withQuery(base+"/compare/"+strconv.FormatInt(s.ID, 10), compareQuery),
			Only:    withQuery(base, focused.values(true)) + "#text"}
		if slices.Contains(rq.VersionIDs, s.ID) {
			// An earlier version of the same submission, or the same text
			// uploaded again: its own group, counted only when asked.
			row.Excluded = row.Excluded || !rq.Versions
			if !row.Excluded && row.Passages > 0 {
				reg.Counted++
			}
			reg.Versions = append(reg.Versions, row)
			continue
		}
		if len(raw.Sources[i].Passages) == 0 && !row.Excluded {
			// No passage at all: chunks shared here and there (names,
			// set phrases), nothing to highlight, nothing counted.
			reg.Scattered = append(reg.Scattered, row)
			continue
		}
		// Passages only in excluded text (a quotation): listed, not counted.
		row.OnlyExcluded = row.Passages == 0
		if !row.Excluded && row.Passages > 0 {
			reg.Counted++
		}
		reg.Sources = append(reg.Sources, row)
	}
	for _, group := range [][]sourceRow{reg.Sources, reg.Versions} {
		for i := range group {
			rows[group[i].ID] = &group[i]
			if group[i].ID == rq.Source {
				reg.Focus = &group[i]
			}
		}
	}
	reg.Listed = len(reg.Sources)
	if rq.Versions {
		reg.Listed += len(reg.Versions)
	}
	if !seeText {
		return reg
	}
	var spans []span
	inLegend := map[int64]bool{}
	for _, s := range final.Sources {
		if reg.Focus != nil && s.ID != reg.Focus.ID {
			continue
		}
		for n, p := range s.Passages {
			spans = append(spans, span{r: p.A(), rank: rank[s.ID], src: s.ID, n: n + 1})
			inLegend[s.ID] = true
		}
	}
	for _, row := range append(slices.Clone(reg.Sources), reg.Versions...) {
		if inLegend[row.ID] {
			reg.Legend = append(reg.Legend, row)
		}
	}
	flags := newFlagMarks(raw.Flags)
	marks := append(passage.CommonSpans(raw.Common), flags.cuts()...)
	reg.Text = segmentText(raw.Text, spans, final.Excluded, marks, func(from int, active []span, excluded bool) segment {
		seg := regionSegment(raw, reg, rows, from, active, excluded)
		flags.decorate(&seg, from)
		return seg
	})
	return reg
}

// regionSegment is how the piece of the report's text starting at from
// shows: highlighted as a passage of the highest-ranked source covering it,
// greyed when excluded, marked as common or template text.
func regionSegment(raw report.Report, reg *reportRegion, rows map[int64]*sourceRow, from int, active []span, excluded bool) segment {
	if len(active) == 0 {
		return plainSegment(raw.Common, from, excluded, reg.Exclusions)
	}
	top := active[0]
	for _, a := range active[1:] {
		if a.rank < top.rank || a.rank == top.rank && a.n < top.n {
			top = a
		}
	}
	row := rows[top.src]
	seg := segment{Class: "hl c" + strconv.Itoa(row.Color), Href: row.Compare + "#p" + strconv.Itoa(top.n)}
	for _, a := range active {
		if a.r.Start == from {
			// A passage starts here: its source's number, and an anchor
			// the match overview's next and previous buttons jump to.
			seg.Label = strconv.Itoa(row.Rank)
			seg.Anchors = []string{"m" + strconv.FormatInt(a.src, 10) + "-" + strconv.Itoa(a.n)}
			break
		}
	}
	if excluded {
		seg.Class += " ex"
	}
	var title strings.Builder
	fmt.Fprintf(&title, "Source %d: %s (%s)", row.Rank, row.Name(), pctText(row.Similarity))
	var also []string
	seen := map[int64]bool{top.src: true}
	for _, a := range active {
		if !seen[a.src] {
			seen[a.src] = true
			o := rows[a.src]
			also = append(also, fmt.Sprintf("source %d: %s", o.Rank, o.Name()))
		}
	}
	if len(also) > 0 {
		slices.Sort(also)
		title.WriteString("; also in " + strings.Join(also, "; "))
	}
	if excluded {
		title.WriteString(" (left out of the figures: " + reg.Exclusions + ")")
	}
	title.WriteString(". Click for the side-by-side view.")
	seg.Title = title.String()
	return seg
}

// plainSegment is how text in no passage shows: greyed when excluded,
// with a title saying why; common text says in how many documents it is
// found, and is marked when the teacher counts it.
func plainSegment(common []passage.CommonRange, from int, excluded bool, exclusions string) segment {
	i, found := slices.BinarySearchFunc(common, from, func(r passage.CommonRange, at int) int {
		switch {
		case r.End <= at:
			return -1
		case r.Start > at:
			return 1
		}
		return 0
	})
	switch {
	case found && common[i].Template != "" && excluded:
		return segment{Class: "excl common", Title: fmt.Sprintf(
			"Template text: %s, registered by the archive staff: left out of the figures", common[i].Template)}
	case found && common[i].Template != "":
		return segment{Class: "common", Title: fmt.Sprintf("Template text: %s: counted, as the filter asks", common[i].Template)}
	case found && excluded:
		return segment{Class: "excl common", Title: fmt.Sprintf(
			"Common text, found in %s documents (a declaration, a prompt or a stock phrase): left out of the figures", docsText(common[i]))}
	case found:
		return segment{Class: "common", Title: fmt.Sprintf(
			"Common text, found in %s documents: counted, as the filter asks", docsText(common[i]))}
	case excluded:
		return segment{Class: "excl", Title: "Left out of the figures: " + exclusions}
	}
	return segment{}
}

// docsText is how many documents hold a common range: "2,431", or "more
// than 100" when only the bound is known.
func docsText(r passage.CommonRange) string {
	if r.AtLeast {
		return "more than " + thousands(r.Docs-1)
	}
	return thousands(r.Docs)
}

// thousands writes n with comma thousands separators: 2431 → "2,431".
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func pctText(f float64) string { return fmt.Sprintf("%.1f %%", f*100) }

// span is a passage's range in one text, with the rank of its source and
// its number among the source's passages (1-based).
type span struct {
	r    passage.Range
	rank int
	src  int64
	n    int
}

// segmentText cuts text at every start and end of a span, of an excluded
// range and of a marked range (common text), and asks mk how to show each
// piece, given its first byte, the spans covering it (in the order given)
// and whether it is excluded. Adjacent pieces shown alike are joined.
func segmentText(text string, spans []span, excluded, marks []passage.Range, mk func(from int, active []span, excluded bool) segment) []segment {
	clip := func(x int) int { return min(max(x, 0), len(text)) }
	shown := report.Reflow(text)
	cuts := []int{0, len(text)}
	for _, s := range spans {
		cuts = append(cuts, clip(s.r.Start), clip(s.r.End))
	}
	for _, rs := range [][]passage.Range{excluded, marks} {
		for _, r := range rs {
			cuts = append(cuts, clip(r.Start), clip(r.End))
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	// spans sorted by start, with their order kept for mk
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return spans[a].r.Start - spans[b].r.Start })
	var out []segment
	var active []int
	next, ex := 0, 0
	for k := 0; k+1 < len(cuts); k++ {
		from, to := cuts[k], cuts[k+1]
		for next < len(order) && spans[order[next]].r.Start <= from {
			active = append(active, order[next])
			next++
		}
		active = slices.DeleteFunc(active, func(i int) bool { return spans[i].r.End <= from })
		for ex < len(excluded) && excluded[ex].End <= from {
			ex++
		}
		isEx := ex < len(excluded) && excluded[ex].Start <= from
		slices.Sort(active)
		cover := make([]span, len(active))
		for i, a := range active {
			cover[i] = spans[a]
		}
		seg := mk(from, cover, isEx)
		seg.Text = shown[from:to]
		if n := len(out); n > 0 && len(seg.Anchors) == 0 && seg.Label == "" && seg.Marker == "" && out[n-1].Class == seg.Class &&
			out[n-1].Title == seg.Title && out[n-1].Href == seg.Href {
			out[n-1].Text += seg.Text
			continue
		}
		out = append(out, seg)
	}
	return splitAtBlankLines(out)
}

// splitAtBlankLines takes the blank lines between paragraphs out of
// highlighted segments: shown inside a highlight they were thin coloured
// slivers at the ends of lines. The white space becomes a plain segment;
// the first piece keeps the segment's anchors and label, and every piece
// its class, title and link.
func splitAtBlankLines(segs []segment) []segment {
	var out []segment
	for _, seg := range segs {
		if seg.Class == "" || !strings.Contains(seg.Text, "\n") {
			out = append(out, seg)
			continue
		}
		rest := seg
		for {
			i, j := blankRun(rest.Text)
			if i < 0 {
				break
			}
			if i > 0 {
				head := rest
				head.Text = rest.Text[:i]
				out = append(out, head)
				rest.Anchors, rest.Label = nil, ""
			}
			out = append(out, segment{Text: rest.Text[i:j], Anchors: rest.Anchors, Label: rest.Label})
			rest.Anchors, rest.Label = nil, ""
			rest.Text = rest.Text[j:]
		}
		if rest.Text != "" {
			out = append(out, rest)
		}
	}
	return out
}

// blankRun finds the first run of white space in s that holds a blank
// line (two line feeds), as [i, j); i is -1 when there is none.
func blankRun(s string) (int, int) {
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' {
			continue
		}
		j, lines := i, 0
		for j < len(s) && (s[j] == '\n' || s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
			if s[j] == '\n' {
				lines++
			}
			j++
		}
		if lines >= 2 {
			return i, j
		}
		i = j - 1
	}
	return -1, -1
}

// ---- the side-by-side view ----

// compareView is the data of compare.html.
type compareView struct {
	pageBase
	Back       string // the report page, with its filters
	Base       string // the page's own path, for the filter form
	Doc        docHeader
	IsCheck    bool
	Filename   string
	Src        sourceRow
	Q          reportQuery
	Exclusions string
	DocHidden  bool
	SrcHidden  bool
	Left       []segment
	Right      []segment
	Rows       []compareRow
}

// compareRow is one passage, each side with its context.
type compareRow struct {
	N      int
	A, B   excerpt
	AWords int
	BWords int
	Shared int
}

// excerpt is a passage with some words of context on each side.
type excerpt struct {
	Before, Match, After string
}

// contextWords is how much context a passage gets on each side in the
// side-by-side table.
const contextWords = 30

// buildCompare lays out the side-by-side view of the filtered report's
// document and source src (which must be in it).
func buildCompare(rep report.Report, src report.SourceReport, rank int, ex passage.Exclusions, seeDoc, seeSrc bool) ([]segment, []segment, []compareRow) {
	color := "hl c" + strconv.Itoa(rank%paletteSize)
	var as, bs []span
	for i, p := range src.Passages {
		as = append(as, span{r: p.A(), n: i + 1})
		bs = append(bs, span{r: p.B(), n: i + 1})
	}
	column := func(text string, spans []span, excluded []passage.Range, own, other string) []segment {
		started := map[int]bool{}
		return segmentText(text, spans, excluded, nil, func(_ int, active []span, isEx bool) segment {
			if len(active) == 0 {
				if isEx {
					return segment{Class: "excl", Title: "Left out of the figures"}
				}
				return segment{}
			}
			first := active[0].n
			var labels []string
			var anchors []string
			for _, a := range active {
				first = min(first, a.n)
				if !started[a.n] {
					started[a.n] = true
					labels = append(labels, strconv.Itoa(a.n))
					anchors = append(anchors, own+strconv.Itoa(a.n))
				}
			}
			seg := segment{Class: color, Href: "#" + other + strconv.Itoa(first),
				Title: "Passage " + strconv.Itoa(first) + ": click to see it on the other side",
				Label: strings.Join(labels, ","), Anchors: anchors}
			if isEx {
				seg.Class += " ex"
			}
			return seg
		})
	}
	var left, right []segment
	if seeDoc {
		left = column(rep.Text, as, rep.Excluded, "a", "b")
	}
	if seeSrc {
		right = column(src.Text, bs, passage.ExcludedRanges(src.Text, ex), "b", "a")
	}
	rows := make([]compareRow, len(src.Passages))
	for i, p := range src.Passages {
		rows[i] = compareRow{N: i + 1, AWords: p.AWords, BWords: p.BWords, Shared: p.Shared}
		if seeDoc {
			rows[i].A = makeExcerpt(rep.Text, p.AStart, p.AEnd, contextWords)
		}
		if seeSrc {
			rows[i].B = makeExcerpt(src.Text, p.BStart, p.BEnd, contextWords)
		}
	}
	return left, right, rows
}

// makeExcerpt cuts text[start:end] with up to n words of context on each
// side, marking cut ends with an ellipsis.
func makeExcerpt(text string, start, end, n int) excerpt {
	start, end = min(max(start, 0), len(text)), min(max(end, 0), len(text))
	from := start
	for w := 0; w < n && from > 0; w++ {
		from = wordBoundaryBack(text, from)
	}
	to := end
	for w := 0; w < n && to < len(text); w++ {
		to = wordBoundaryFwd(text, to)
	}
	e := excerpt{Before: text[from:start], Match: text[start:end], After: text[end:to]}
	if from > 0 {
		e.Before = "…" + strings.TrimLeftFunc(e.Before, unicode.IsSpace)
	}
	if to < len(text) {
		e.After = strings.TrimRightFunc(e.After, unicode.IsSpace) + "…"
	}
	return e
}

// wordBoundaryBack moves i back over white space and then one word.
func wordBoundaryBack(text string, i int) int {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= size
	}
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if unicode.IsSpace(r) {
			break
		}
		i -= size
	}
	return i
}

// wordBoundaryFwd moves i forward over white space and then one word.
func wordBoundaryFwd(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// rawIndex is the similarity index as raw gives it, filtered being raw
// filtered as rq asks: ok is false when raw counts common text (the
// teacher's switch), which the index leaves out. With the filter the index
// is defined with (the defaults, raw's versions left out) it is filtered's
// coverage, without filtering again.
func rawIndex(raw report.Report, rq reportQuery, filtered report.Report) (float64, bool) {
	if !rq.Common {
		return 0, false
	}
	if rq.isDefault() && slices.Equal(rq.VersionIDs, raw.Versions()) {
		return filtered.Coverage, true
	}
	return raw.Index().Value, true
}

// indexOf is the similarity index of a stored document's raw report for a
// page, the API or the print (filtered: raw as rq filters it): computed
// from raw when raw leaves common text out as the index does (rawIndex;
// the figure is then exact, whatever the stored index's state), else the
// stored one (nil while none is stored).
func (s *Server) indexOf(ctx context.Context, raw report.Report, rq reportQuery, filtered report.Report) (*float64, error) {
	if x, ok := rawIndex(raw, rq, filtered); ok {
		return &x, nil
	}
	idx, err := store.GetSimilarityIndex(ctx, s.db, raw.Doc)
	if err != nil || idx == nil {
		return nil, err
	}
	return &idx.Value, nil
}
