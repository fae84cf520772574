package indexfiles

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
)

// Store keeps the index in the data directory:
//
//	<data_dir>/slices/slice-<lo>-<hi>-g<G>.idx   a node's base slice, built by run G (full run or compaction)
//	<data_dir>/gen-<run id>/docs.tbl              document table (internal ID ↔ documents.id, chunk counts)
//	<data_dir>/gen-<run id>/delta-NNN.dlt         per node: tombstones and documents indexed since its base
//
// Base slices are large and written once; a run writes only its generation's
// document table and deltas, so saving follows the size of the change. Every
// file is written under a temporary name, fsynced and renamed, so a visible
// name is always complete; a generation directory appears only when all its
// files are there. Every file carries the format version, the parameters, the
// database's identity (the instance string the engine reads from plagd_meta), its generation and a checksum
// (invindex/doc.go); anything that does not match exactly is refused and the
// daemon rebuilds with a full run.
//
// A name is not proof of ownership: the data directory may hold files of
// another database (a re-created or template-copied database, a test run)
// or of this database's own past (a restored backup repeats its run IDs, so
// slice-…-g1.idx of the old history has the very name and header a new run 1
// writes). So the store reuses an existing base file only when it knows the
// file: this store wrote it, or read it and checked its header, in this
// process (known). Any other file under a wanted name is overwritten (a
// temporary file renamed over it), never trusted because it exists; and
// prune deletes base files it does not know.
type Store struct {
	dir string

	mu    sync.Mutex
	known map[string]bool // base file names (slices/…) written or verified by this store
}

// NewStore is the store of the data directory dir.
func NewStore(dir string) *Store { return &Store{dir: dir} }

func (s *Store) setKnown(path string, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known == nil {
		s.known = map[string]bool{}
	}
	if known {
		s.known[filepath.Base(path)] = true
	} else {
		delete(s.known, filepath.Base(path))
	}
}

func (s *Store) isKnown(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.known[filepath.Base(path)]
}

// ours reports whether path is a published base file this store knows.
func (s *Store) ours(path string) bool {
	if !s.isKnown(path) {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

func genDir(dir string, gen int64) string { return filepath.Join(dir, fmt.Sprintf("gen-%d", gen)) }

func sliceFile(dir string, lo, hi uint64, baseGen int64) string {
	return filepath.Join(dir, "slices", fmt.Sprintf("slice-%d-%d-g%d.idx", lo, hi, baseGen))
}

// Range is one range of a generation to save: its base (in memory, or
// only its file when base is nil: a disk copy's) and its delta.
type Range struct {
	lo, hi  uint64
	baseGen int64
	base    *invindex.Slice // nil: the file exists already
	delta   *invindex.Delta
}

// MemRanges are the ranges of in-process nodes' states (base and delta in memory).
func MemRanges(states []*cluster.NodeState) []Range {
	out := make([]Range, len(states))
	for i, st := range states {
		out[i] = Range{lo: st.Base.Lo(), hi: st.Base.Hi(), baseGen: st.BaseGen, base: st.Base, delta: &st.Delta}
	}
	return out
}

// DiskRanges are the ranges of the master's disk copies (base on disk, delta in memory).
func DiskRanges(states []*cluster.DiskState) []Range {
	out := make([]Range, len(states))
	for i, st := range states {
		out[i] = Range{lo: st.Lo, hi: st.Hi, baseGen: st.BaseGen, delta: &st.Delta}
	}
	return out
}

// save writes generation gen: the base slices not yet on disk, then the
// generation's document table and deltas.
func (s *Store) Save(gen int64, instance string, p invindex.Params, docs *invindex.DocTable, states []Range) error {
	if err := os.MkdirAll(filepath.Join(s.dir, "slices"), 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	h := invindex.Header{Params: p, HashVersion: invindex.HashVersion, Instance: instance}
	keep := map[string]bool{}
	for _, st := range states {
		path := sliceFile(s.dir, st.lo, st.hi, st.baseGen)
		keep[filepath.Base(path)] = true
		if s.ours(path) {
			continue // written or checked by this store; files are never modified
		}
		if st.base == nil {
			// The disk copy has no slice in memory: it loaded or wrote its
			// base through this store, so an unknown file is not its own.
			return fmt.Errorf("base file %s of the master's disk copy is missing or was not written by this process", path)
		}
		if err := s.writeBase(h, st.base, st.baseGen, true); err != nil {
			return err
		}
	}
	if err := syncDir(filepath.Join(s.dir, "slices")); err != nil {
		return err
	}
	final := genDir(s.dir, gen)
	tmp, err := os.MkdirTemp(s.dir, fmt.Sprintf(".tmp-gen-%d-", gen))
	if err != nil {
		return fmt.Errorf("create temporary generation dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	h.Generation = gen
	if err := writeFile(filepath.Join(tmp, "docs.tbl"), func(w *bufio.Writer) error {
		return invindex.WriteDocTable(w, h, docs)
	}); err != nil {
		return err
	}
	for i, st := range states {
		hd := h
		hd.Lo, hd.Hi = st.lo, st.hi
		if err := writeFile(filepath.Join(tmp, fmt.Sprintf("delta-%03d.dlt", i)), func(w *bufio.Writer) error {
			return invindex.WriteDelta(w, hd, st.delta)
		}); err != nil {
			return err
		}
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	_ = os.RemoveAll(final) // a leftover of an earlier attempt at the same generation
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("publish index generation: %w", err)
	}
	if err := syncDir(s.dir); err != nil {
		return err
	}
	return s.prune(gen, keep)
}

// writeBase writes s as the base file of generation gen, under its
// temporary name (publish false) or published.
func (s *Store) writeBase(h invindex.Header, sl *invindex.Slice, gen int64, publish bool) error {
	path := sliceFile(s.dir, sl.Lo(), sl.Hi(), gen)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	h.Generation = gen
	tmp := path + ".tmp"
	s.setKnown(tmp, true) // before it exists: prune must not take it for a stranger's
	if err := writeFile(tmp, func(w *bufio.Writer) error { return invindex.WriteSlice(w, h, sl) }); err != nil {
		return err
	}
	if !publish {
		return nil
	}
	return s.publishBase(path)
}

// publishBase renames path's temporary file over path (replacing whatever
// file had that name) and records path as this store's.
func (s *Store) publishBase(path string) error {
	s.setKnown(path, true)
	if err := os.Rename(path+".tmp", path); err != nil {
		s.setKnown(path, false)
		return fmt.Errorf("publish %s: %w", path, err)
	}
	s.setKnown(path+".tmp", false)
	return nil
}

// readBase reads the base file of [lo, hi) built in generation gen, checks
// that it belongs to this database, generation, parameters and range, and
// records it as this store's.
func (s *Store) readBase(lo, hi uint64, gen int64, instance string, p invindex.Params) (*invindex.Slice, error) {
	var base *invindex.Slice
	path := sliceFile(s.dir, lo, hi, gen)
	err := readFile(path, func(r *bufio.Reader) error {
		h, sl, err := invindex.ReadSlice(r)
		if err == nil {
			err = checkHeader(h, filepath.Base(path), gen, instance, p)
		}
		if err == nil && (h.Lo != lo || h.Hi != hi) {
			err = fmt.Errorf("%s holds range [%d,%d), want [%d,%d)", filepath.Base(path), h.Lo, h.Hi, lo, hi)
		}
		base = sl
		return err
	})
	if err != nil {
		return nil, err
	}
	s.setKnown(path, true)
	return base, nil
}

// Files are the index store's base files as the master's disk copy
// (cluster.BaseFiles) sees them.
type Files struct {
	s        *Store
	params   func() invindex.Params
	instance func() string
}

// NewFiles are s's base files; params are the index parameters of the
// current run (the second chunk kind may depend on the archive's size),
// instance names the database (both read when a file is written or checked).
func NewFiles(s *Store, params func() invindex.Params, instance func() string) *Files {
	return &Files{s: s, params: params, instance: instance}
}

func (f *Files) header() invindex.Header {
	return invindex.Header{Params: f.params(), HashVersion: invindex.HashVersion, Instance: f.instance()}
}

func (f *Files) ReadBase(lo, hi uint64, gen int64) (*invindex.Slice, error) {
	return f.s.readBase(lo, hi, gen, f.instance(), f.params())
}

// HasBase reports only files this store wrote or checked: a file of another
// database or of an earlier history under the same name is not a base to
// keep, and the caller writes its own over it.
func (f *Files) HasBase(lo, hi uint64, gen int64) bool {
	return f.s.ours(sliceFile(f.s.dir, lo, hi, gen))
}

func (f *Files) WriteBase(sl *invindex.Slice, gen int64, publish bool) error {
	return f.s.writeBase(f.header(), sl, gen, publish)
}

func (f *Files) PublishBase(lo, hi uint64, gen int64) error {
	path := sliceFile(f.s.dir, lo, hi, gen)
	if err := f.s.publishBase(path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func (f *Files) DiscardBase(lo, hi uint64, gen int64) {
	tmp := sliceFile(f.s.dir, lo, hi, gen) + ".tmp"
	_ = os.Remove(tmp)
	f.s.setKnown(tmp, false)
}

var _ cluster.BaseFiles = (*Files)(nil)

// checkHeader checks that a file belongs to this database, generation and parameters.
func checkHeader(h invindex.Header, file string, want int64, instance string, p invindex.Params) error {
	switch {
	case h.Instance != instance:
		return fmt.Errorf("%s belongs to another database (instance %q, want %q)", file, h.Instance, instance)
	case h.Generation != want:
		return fmt.Errorf("%s is generation %d, want %d", file, h.Generation, want)
	case h.Params != p:
		return fmt.Errorf("%s was built with parameters %+v, configuration says %+v", file, h.Params, p)
	case h.HashVersion != invindex.HashVersion:
		return fmt.Errorf("%s uses chunk hash version %d, this plagd has %d", file, h.HashVersion, invindex.HashVersion)
	}
	return nil
}

func writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// errNoIndex means the wanted generation is not on disk.
var errNoIndex = errors.New("no index files for this generation")

// load reads generation gen and checks that it belongs to this database and
// these parameters.
func (s *Store) Load(gen int64, instance string, p invindex.Params) (*invindex.DocTable, []*cluster.NodeState, error) {
	var states []*cluster.NodeState
	docs, err := s.loadWith(gen, instance, p, func(st *cluster.NodeState) { states = append(states, st) })
	if err != nil {
		return nil, nil, err
	}
	return docs, states, nil
}

// loadDisk reads generation gen for the master's disk copy: the document
// table and the deltas; each base file is read once to check it and take its
// numbers (one range in memory at a time), and kept only as its file.
func (s *Store) LoadDisk(gen int64, instance string, p invindex.Params) (*invindex.DocTable, []*cluster.DiskState, error) {
	var states []*cluster.DiskState
	docs, err := s.loadWith(gen, instance, p, func(st *cluster.NodeState) { states = append(states, cluster.DiskStateOf(st)) })
	if err != nil {
		return nil, nil, err
	}
	return docs, states, nil
}

// loadWith reads generation gen and hands each range's state to add, in order.
func (s *Store) loadWith(gen int64, instance string, p invindex.Params, add func(*cluster.NodeState)) (*invindex.DocTable, error) {
	dir := genDir(s.dir, gen)
	check := func(h invindex.Header, file string, want int64) error {
		return checkHeader(h, file, want, instance, p)
	}
	var docs *invindex.DocTable
	err := readFile(filepath.Join(dir, "docs.tbl"), func(r *bufio.Reader) error {
		h, t, err := invindex.ReadDocTable(r)
		if err == nil {
			err = check(h, "docs.tbl", gen)
		}
		docs = t
		return err
	})
	if err != nil {
		return nil, err
	}
	names, _ := filepath.Glob(filepath.Join(dir, "delta-*.dlt"))
	sort.Strings(names)
	var next uint64
	for _, name := range names {
		var hd invindex.Header
		var delta *invindex.Delta
		if err := readFile(name, func(r *bufio.Reader) error {
			var err error
			if hd, delta, err = invindex.ReadDelta(r); err == nil {
				err = check(hd, filepath.Base(name), gen)
			}
			return err
		}); err != nil {
			return nil, err
		}
		if hd.Lo != next {
			return nil, fmt.Errorf("%s starts at chunk %d, expected %d: deltas missing", name, hd.Lo, next)
		}
		next = hd.Hi
		base, err := s.readBase(hd.Lo, hd.Hi, delta.Base, instance, p)
		if err != nil {
			return nil, err
		}
		st, err := cluster.NewNodeState(base, delta.Base, *delta)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		add(st)
	}
	if next != p.SpaceSize() {
		return nil, fmt.Errorf("index deltas in %s cover [0,%d), not the whole chunk space [0,%d)", dir, next, p.SpaceSize())
	}
	return docs, nil
}

// readFile opens path and hands a buffered reader to read; a missing file is errNoIndex.
func readFile(path string, read func(*bufio.Reader) error) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w (%s)", errNoIndex, path)
	} else if err != nil {
		return err
	}
	defer f.Close()
	if err := read(bufio.NewReaderSize(f, 1<<20)); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// sliceGen is the generation in a slice file's name (slice-lo-hi-gG.idx,
// or its .tmp), 0 for other names.
func sliceGen(name string) int64 {
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".tmp"), ".idx")
	i := strings.LastIndex(name, "-g")
	if i < 0 {
		return 0
	}
	g, _ := strconv.ParseInt(name[i+2:], 10, 64)
	return g
}

// prune deletes every generation except keep, base slices no longer
// referenced (keepSlices: file names), base files this store does not know
// (another database's, an earlier history's, leftovers of interrupted
// saves) and leftovers of interrupted generation saves.
func (s *Store) prune(keep int64, keepSlices map[string]bool) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".tmp-gen-") {
			os.RemoveAll(filepath.Join(s.dir, name))
			continue
		}
		if g, ok := strings.CutPrefix(name, "gen-"); ok {
			if n, err := strconv.ParseInt(g, 10, 64); err == nil && n != keep {
				os.RemoveAll(filepath.Join(s.dir, name))
			}
		}
	}
	slices, err := os.ReadDir(filepath.Join(s.dir, "slices"))
	if err != nil {
		return err
	}
	for _, e := range slices {
		// Bases of later generations (a run that committed meanwhile, a
		// compaction of the master's disk copy being written) are not this
		// save's to judge.
		path := filepath.Join(s.dir, "slices", e.Name())
		if !s.isKnown(path) || (!keepSlices[e.Name()] && sliceGen(e.Name()) <= keep) {
			os.Remove(path)
			s.setKnown(path, false)
		}
	}
	return nil
}
