package ingest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/store"
)

// Options says what `plagd ingest` loads into the documents table.
type Options struct {
	// Kind is stored in documents.kind (thesis, essay, ...); "" leaves it NULL
	// (and an existing document's kind unchanged).
	Kind string
	// Roots are files and folders. A folder is walked recursively; hidden
	// entries (".name") are skipped.
	Roots []string
	// Exts limits which files are taken (".pdf" or "pdf", any case). Empty
	// means extract.Extensions(), the document formats, applied only to files
	// found in folders: a file named on the command line is always taken.
	Exts []string
	// MaxBytes refuses larger files without reading them (extract.max_bytes);
	// 0 means no limit.
	MaxBytes int64
	// Progress receives a progress bar when it is a terminal; otherwise (or
	// when nil) progress goes to the log every few seconds.
	Progress io.Writer
	// Check, when set, extracts every file as the next run will, so that
	// staff see at once which files will fail and why (they are stored all
	// the same: the run marks them failed, and a fixed file re-ingested
	// clears the failure). Costs one extraction per file.
	Check *extract.Options
	// Extract reads the files for Check (the process's extraction pool);
	// nil: Files makes one for the call and closes it.
	Extract *sandbox.Pool
	// NearDups, when set with Check, compares each stored file's text with
	// the archive and the files stored before it at once (before any run)
	// and lists near-duplicates in the summary.
	NearDups *engine.NearDups
	// Duplicates says what to do with a file byte-identical to a live
	// document stored under another external id (the same PDF in two
	// folders, an archive imported twice from different roots) or to a file
	// earlier in the same import: DuplicatesAsk (the default) skips it and
	// lists it in the summary, DuplicatesNew stores it all the same.
	// DuplicatesReplace is for manifests (Documents.ImportManifest), which
	// say what the replaced document should become; Files refuses it.
	Duplicates Duplicates
}

// IdenticalFile is a file not stored because a live document (or a file
// earlier in the same import) has the same bytes.
type IdenticalFile struct {
	Path string `json:"path"`
	// Existing are the live documents with its bytes; empty when it is a
	// file earlier in the import (Earlier).
	Existing []store.Identical `json:"existing,omitempty"`
	Earlier  string            `json:"earlier,omitempty"`
}

// NearDup is a stored file whose text is within neardup.distance bits of
// documents already stored.
type NearDup struct {
	Path       string                 `json:"path"`
	ID         int64                  `json:"id"`
	Candidates []engine.NearDuplicate `json:"candidates"`
}

// Failure is a file that was not stored, with the reason in words.
type Failure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Summary counts what Files did. Added+Updated+Unchanged+Failed plus the
// Identical files is the number of files considered; Skipped files did not
// match the extensions.
type Summary struct {
	Added     int       `json:"added"`
	Updated   int       `json:"updated"`
	Unchanged int       `json:"unchanged"`
	Failed    int       `json:"failed"`
	Skipped   int       `json:"skipped"`
	Failures  []Failure `json:"failures,omitempty"`
	Bytes     int64     `json:"bytes"` // size of the files stored or compared
	// Formats counts the files stored, by detected format (extract.Format).
	Formats map[string]int `json:"formats,omitempty"`
	// Unreadable are files stored whose text cannot be extracted (with Check):
	// the next run will mark them failed with this reason.
	Unreadable []Failure `json:"unreadable,omitempty"`
	// NearDuplicates are added or changed files that nearly equal stored
	// documents (with Check and engine.NearDups).
	NearDuplicates []NearDup `json:"near_duplicates,omitempty"`
	// Identical are files not stored because they are byte-identical to a
	// live document under another external id, or to a file earlier in the
	// import (Options.Duplicates).
	Identical []IdenticalFile `json:"identical,omitempty"`
}

// Stored is the number of files now in the database as they are on disk.
func (s Summary) Stored() int { return s.Added + s.Updated + s.Unchanged }

// fail records a file not stored. Paths and reasons come from the file
// system and from parsers quoting files: both are made clean bounded lines
// before they reach the summary (printed, logged, sent as JSON).
func (s *Summary) fail(path, reason string) {
	s.Failed++
	s.Failures = append(s.Failures, Failure{Path: store.PathShown(path), Reason: store.ReasonField(reason)})
}

// Batches are one transaction each: big enough that the round trips don't
// dominate, small enough that an interrupted import loses little and memory
// stays bounded (files are read one batch at a time).
const (
	ingestBatchFiles = 100
	ingestBatchBytes = 64 << 20
)

// Files loads files into the documents table, keyed by external_id: a file
// named directly is keyed by its base name, a file found in folder F by
// "F/relative/path" (F's base name first, so that two folders with the same
// relative file names don't collide). Files that cannot be read are listed in
// the summary and do not stop the import; an error is returned only when the
// database fails or ctx ends, together with what was done until then. A
// file already stored with the same content is left alone (store.StoreFiles).
func Files(ctx context.Context, db *store.DB, opt Options, log zerolog.Logger) (Summary, error) {
	var sum Summary
	if opt.Duplicates == DuplicatesReplace {
		return sum, errors.New("replacing identical documents needs a manifest (it says what each should become); for files and folders choose new, or leave it out to skip them")
	}
	if opt.Check != nil && opt.Extract == nil {
		opt.Extract = sandbox.New(sandbox.Config{Isolate: true, Timeout: opt.Check.Timeout}, log)
		defer opt.Extract.Close()
	}
	files := collectFiles(opt, &sum, log)
	var total int64
	for _, f := range files {
		total += f.size
	}
	log.Info().Int("files", len(files)).Int64("bytes", total).Int("skipped", sum.Skipped).
		Int("unreadable", sum.Failed).Msg("ingest: files found")

	seen := map[[sha256.Size]byte]string{} // content digests of the files read so far → their paths
	prog := newIngestProgress(opt.Progress, log, len(files), total)
	defer prog.finish()
	for len(files) > 0 {
		n, size := 0, int64(0)
		for n < len(files) && n < ingestBatchFiles && (n == 0 || size+files[n].size <= ingestBatchBytes) {
			size += files[n].size
			n++
		}
		if err := ingestBatch(ctx, db, opt, files[:n], seen, &sum, log); err != nil {
			if ctx.Err() != nil {
				return sum, fmt.Errorf("ingest interrupted after %d files; run the same command again to finish (unchanged files are skipped): %w",
					sum.Stored(), ctx.Err())
			}
			return sum, err
		}
		prog.add(n, size)
		files = files[n:]
	}
	log.Info().Int("added", sum.Added).Int("updated", sum.Updated).Int("unchanged", sum.Unchanged).
		Int("failed", sum.Failed).Int("skipped", sum.Skipped).Int64("bytes", sum.Bytes).Msg("ingest: done")
	return sum, nil
}

// ingestFile is a file found by collectFiles; its content is read later, one
// batch at a time.
type ingestFile struct {
	path       string
	externalID string
	size       int64
}

// ingestBatch reads the files of one batch and stores them in one
// transaction (store.StoreFiles).
func ingestBatch(ctx context.Context, db *store.DB, opt Options, files []ingestFile, seen map[[sha256.Size]byte]string,
	sum *Summary, log zerolog.Logger) error {
	var (
		inputs   []store.FileInput
		queued   []ingestFile
		contents [][]byte
	)
	for _, f := range files {
		content, err := readLimited(f, opt.MaxBytes)
		if err != nil {
			log.Warn().Str("path", store.PathShown(f.path)).Str("error", store.ReasonField(err.Error())).Msg("ingest: file not stored")
			sum.fail(f.path, err.Error())
			continue
		}
		if opt.Duplicates != DuplicatesNew {
			same, err := identicalElsewhere(ctx, db, f, content, seen)
			if err != nil {
				return err
			}
			if same != nil {
				log.Info().Str("path", store.PathShown(f.path)).Msg("ingest: byte-identical to a stored document, skipped")
				sum.Identical = append(sum.Identical, *same)
				continue
			}
		}
		name := filepath.Base(f.path)
		inputs = append(inputs, store.FileInput{ExternalID: f.externalID, Title: strings.TrimSuffix(name, filepath.Ext(name)),
			Kind: opt.Kind, Filename: name, ContentType: extract.ContentType(name), Content: content})
		queued = append(queued, f)
		contents = append(contents, content)
	}
	if len(queued) == 0 {
		return nil
	}
	formats, texts, unreadable, err := checkFiles(ctx, queued, contents, opt.Check, opt.Extract)
	if err != nil {
		return err
	}
	done, err := store.StoreFiles(ctx, db, inputs)
	var fe *store.FileError
	switch {
	case errors.As(err, &fe):
		return fmt.Errorf("ingest: store %s: %w", store.PathShown(queued[fe.Index].path), fe.Err)
	case err != nil:
		return fmt.Errorf("ingest: %w", err)
	}
	// Counted only after the commit, so the summary never claims rows a
	// failed transaction rolled back.
	stored := make([]int64, len(queued)) // document IDs of added and updated files; 0 for unchanged
	for i, d := range done {
		switch {
		case d.Unchanged:
			sum.Unchanged++
		case d.Inserted:
			sum.Added++
		default:
			sum.Updated++
		}
		stored[i] = d.ID
		sum.Bytes += queued[i].size
	}
	if sum.Formats == nil {
		sum.Formats = map[string]int{}
	}
	for f, n := range formats {
		sum.Formats[f] += n
	}
	sum.Unreadable = append(sum.Unreadable, unreadable...)
	if texts != nil {
		// The next run reads these files from what was read here.
		reader := store.Reader(*opt.Check)
		for i, id := range stored {
			if id != 0 && texts[i] != nil {
				if err := store.KeepExtracted(ctx, db, id, contents[i], reader, texts[i].Text, texts[i].Flags); err != nil {
					return err
				}
			}
		}
	}
	if opt.NearDups != nil && texts != nil {
		return checkNearDups(ctx, opt.NearDups, queued, stored, texts, sum, log)
	}
	return nil
}

// identicalElsewhere says whether f's content is a live document's under
// another external id (a document under f's own id is the file itself:
// unchanged, or about to be updated) or a file's stored earlier in the
// import, and records the digest of a file that will be stored.
func identicalElsewhere(ctx context.Context, db *store.DB, f ingestFile, content []byte, seen map[[sha256.Size]byte]string) (*IdenticalFile, error) {
	sum := sha256.Sum256(content)
	docs, err := store.IdenticalDocuments(ctx, db, content)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	for _, d := range docs {
		if d.ExternalID == f.externalID {
			seen[sum] = f.path
			return nil, nil
		}
	}
	if earlier, ok := seen[sum]; ok {
		return &IdenticalFile{Path: store.PathShown(f.path), Earlier: store.PathShown(earlier)}, nil
	}
	if len(docs) > 0 {
		return &IdenticalFile{Path: store.PathShown(f.path), Existing: docs}, nil
	}
	seen[sum] = f.path
	return nil, nil
}

// checkNearDups compares the texts of the files a batch added or changed
// with the archive, in file order, recording each hash before the next file
// is checked: two copies in one import are reported at the second.
func checkNearDups(ctx context.Context, nd *engine.NearDups, files []ingestFile, ids []int64, texts []*extract.Result,
	sum *Summary, log zerolog.Logger) error {
	for i, f := range files {
		if ids[i] == 0 || texts[i] == nil {
			continue
		}
		dups, err := nd.CheckAndRecord(ctx, ids[i], texts[i].Text)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			// The file is stored; only the early warning is lost (the
			// report page and `plagd dups` still find it after the run).
			log.Warn().Err(err).Str("path", store.PathShown(f.path)).Msg("ingest: near-duplicate check failed")
			continue
		}
		if len(dups) > 0 {
			sum.NearDuplicates = append(sum.NearDuplicates, NearDup{Path: store.PathShown(f.path), ID: ids[i], Candidates: dups})
			log.Info().Str("path", store.PathShown(f.path)).Int64("id", ids[i]).Int64("near", dups[0].ID).
				Int("distance", dups[0].Distance).Int("candidates", len(dups)).Msg("ingest: near-duplicate")
		}
	}
	return nil
}

// checkFiles detects each file's format and, with opt, extracts it with the
// pool (extract.workers at a time), returning the counts by format, the
// texts (nil without opt, or for a file whose text cannot be had) and the
// files whose text cannot be had. An error is not a file's (ctx ended, the
// pool could not start a process).
func checkFiles(ctx context.Context, files []ingestFile, contents [][]byte, opt *extract.Options, pool *sandbox.Pool) (map[string]int, []*extract.Result, []Failure, error) {
	formats := map[string]int{}
	reasons := make([]string, len(files))
	var texts []*extract.Result
	for i, f := range files {
		formats[string(extract.DetectFormat(contents[i], filepath.Base(f.path), ""))]++
	}
	if opt != nil {
		texts = make([]*extract.Result, len(files))
		var g errgroup.Group
		g.SetLimit(runtime.GOMAXPROCS(0))
		for i, f := range files {
			g.Go(func() error {
				name := filepath.Base(f.path)
				read, reason, err := readText(ctx, pool, contents[i], name, extract.ContentType(name), *opt)
				switch {
				case err != nil:
					return err
				case reason != nil:
					reasons[i] = reason.Error()
				default:
					texts[i] = &read
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, nil, nil, err
		}
	}
	var bad []Failure
	for i, r := range reasons {
		if r != "" {
			bad = append(bad, Failure{Path: store.PathShown(files[i].path), Reason: store.ReasonField(r)})
		}
	}
	return formats, texts, bad, nil
}

// readLimited reads a file unless it is over max bytes, checking the size
// before reading (so a 5 GB disk image costs nothing) and while reading (in
// case the file grew since it was listed).
func readLimited(f ingestFile, max int64) ([]byte, error) {
	if max > 0 && f.size > max {
		return nil, extract.TooLarge(f.size, max)
	}
	file, err := os.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("cannot open: %w", unwrapPath(err))
	}
	defer file.Close()
	r := io.Reader(file)
	if max > 0 {
		r = io.LimitReader(file, max+1)
	}
	content, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPath(err))
	}
	if max > 0 && int64(len(content)) > max {
		return nil, extract.TooLarge(int64(len(content)), max)
	}
	return content, nil
}

// unwrapPath drops the path from *PathError: the failure list already names
// the file, and "open x: permission denied" next to x reads twice.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// collectFiles lists the files to ingest, in a stable order (roots as given,
// folders sorted by name). Unreadable paths become failures.
func collectFiles(opt Options, sum *Summary, log zerolog.Logger) []ingestFile {
	c := collector{
		sum:     sum,
		log:     log,
		exts:    map[string]bool{},
		visited: map[string]bool{},
		ids:     map[string]string{},
		paths:   map[string]bool{},
	}
	exts := opt.Exts
	c.filterNamed = len(exts) > 0
	if len(exts) == 0 {
		exts = extract.Extensions()
	}
	for _, e := range exts {
		e = strings.ToLower(strings.TrimSpace(e))
		if e != "" && !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		c.exts[e] = true
	}
	for _, root := range opt.Roots {
		c.root(root)
	}
	return c.files
}

type collector struct {
	sum         *Summary
	log         zerolog.Logger
	exts        map[string]bool
	filterNamed bool            // apply exts to files named as roots too
	visited     map[string]bool // real paths of folders walked: symlink loops end here
	ids         map[string]string
	paths       map[string]bool
	files       []ingestFile
}

func (c *collector) root(root string) {
	info, err := os.Stat(root) // follows a symlink given as a root
	if err != nil {
		c.sum.fail(root, describeStatError(err))
		return
	}
	switch {
	case info.Mode().IsRegular():
		if c.filterNamed && !c.exts[strings.ToLower(filepath.Ext(root))] {
			c.sum.Skipped++
			return
		}
		c.add(root, filepath.Base(root), info.Size())
	case info.IsDir():
		abs, err := filepath.Abs(root)
		if err != nil {
			c.sum.fail(root, err.Error())
			return
		}
		prefix := filepath.Base(abs)
		if prefix == string(filepath.Separator) {
			prefix = "" // the file system root: ids are paths from it
		}
		c.walk(root, prefix)
	default:
		c.sum.fail(root, "not a regular file or a folder")
	}
}

// walk adds the files under dir. Symbolic links are followed, because
// archives are often assembled from links; a folder already walked (a link
// loop, or two links to one folder) is skipped.
func (c *collector) walk(dir, idPrefix string) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		c.sum.fail(dir, describeStatError(err))
		return
	}
	if c.visited[real] {
		c.log.Debug().Str("path", store.PathShown(dir)).Str("target", store.PathShown(real)).Msg("ingest: folder already walked (symbolic link), skipped")
		return
	}
	c.visited[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.sum.fail(dir, "cannot list the folder: "+unwrapPath(err).Error())
		// ReadDir returns what it read before the error; go on with that.
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		id := name
		if idPrefix != "" {
			id = idPrefix + "/" + name
		}
		info, err := os.Stat(path) // follows links
		if err != nil {
			c.sum.fail(path, describeStatError(err))
			continue
		}
		switch {
		case info.IsDir():
			c.walk(path, id)
		case info.Mode().IsRegular():
			if !c.exts[strings.ToLower(filepath.Ext(name))] {
				c.sum.Skipped++
				continue
			}
			c.add(path, id, info.Size())
		default:
			c.log.Debug().Str("path", store.PathShown(path)).Msg("ingest: not a regular file, skipped")
		}
	}
}

func (c *collector) add(path, externalID string, size int64) {
	abs, err := filepath.Abs(path)
	if err == nil {
		if c.paths[abs] {
			return // the same file named twice
		}
		c.paths[abs] = true
	}
	if problem := store.ExternalIDProblem(externalID); problem != "" {
		c.sum.fail(path, problem)
		return
	}
	if other, dup := c.ids[externalID]; dup {
		c.sum.fail(path, fmt.Sprintf("same external id %q as %s; ingest the two folders in separate commands or rename one", externalID, other))
		return
	}
	c.ids[externalID] = path
	c.files = append(c.files, ingestFile{path: path, externalID: externalID, size: size})
}

func describeStatError(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file or folder (or a broken symbolic link)"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	return unwrapPath(err).Error()
}

// ingestProgress shows how far an import is: a redrawn line on a terminal,
// a log line every logEvery otherwise (for cron jobs and log collectors).
type ingestProgress struct {
	term       io.Writer // nil: log instead
	log        zerolog.Logger
	files      int
	bytes      int64
	doneFiles  int
	doneBytes  int64
	start      time.Time
	lastReport time.Time
}

const (
	drawEvery = 200 * time.Millisecond
	logEvery  = 10 * time.Second
)

func newIngestProgress(w io.Writer, log zerolog.Logger, files int, bytes int64) *ingestProgress {
	p := &ingestProgress{log: log, files: files, bytes: bytes, start: time.Now()}
	if w != nil && isTerminal(w) {
		p.term = w
	}
	p.lastReport = p.start
	return p
}

func (p *ingestProgress) add(files int, bytes int64) {
	p.doneFiles += files
	p.doneBytes += bytes
	now := time.Now()
	switch {
	case p.term != nil && now.Sub(p.lastReport) >= drawEvery:
		p.draw(now)
	case p.term == nil && now.Sub(p.lastReport) >= logEvery:
		p.log.Info().Int("files_done", p.doneFiles).Int("files", p.files).
			Int64("bytes_done", p.doneBytes).Int64("bytes", p.bytes).
			Float64("files_per_s", p.rate(now)).Msg("ingest progress")
	default:
		return
	}
	p.lastReport = now
}

func (p *ingestProgress) rate(now time.Time) float64 {
	s := now.Sub(p.start).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(p.doneFiles) / s
}

func (p *ingestProgress) draw(now time.Time) {
	const width = 30
	frac := 1.0
	if p.files > 0 {
		frac = float64(p.doneFiles) / float64(p.files)
	}
	fill := int(frac * width)
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
	mbps := 0.0
	if s := now.Sub(p.start).Seconds(); s > 0 {
		mbps = float64(p.doneBytes) / (1 << 20) / s
	}
	fmt.Fprintf(p.term, "\r\033[K[%s] %d/%d files  %.1f/%.1f MB  %.0f files/s  %.1f MB/s",
		bar, p.doneFiles, p.files, float64(p.doneBytes)/(1<<20), float64(p.bytes)/(1<<20), p.rate(now), mbps)
}

// finish draws the final state and ends the line, so later output starts clean.
func (p *ingestProgress) finish() {
	if p.term == nil || p.files == 0 {
		return
	}
	p.draw(time.Now())
	fmt.Fprintln(p.term)
}

// isTerminal reports whether w is a terminal (or a Cygwin/MSYS pty): the
// progress bar is drawn only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}
