package daemon

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/invindex"
)

// indexStore keeps the index in the data directory:
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
// database's instance ID, its generation and a checksum (invindex/doc.go);
// anything that does not match exactly is refused and the daemon rebuilds
// with a full run.
type indexStore struct {
	dir string
}

func genDir(dir string, gen int64) string { return filepath.Join(dir, fmt.Sprintf("gen-%d", gen)) }

func sliceFile(dir string, lo, hi uint64, baseGen int64) string {
	return filepath.Join(dir, "slices", fmt.Sprintf("slice-%d-%d-g%d.idx", lo, hi, baseGen))
}

// savedRange is one range of a generation to save: its base (in memory, or
// only its file when base is nil: a disk copy's) and its delta.
type savedRange struct {
	lo, hi  uint64
	baseGen int64
	base    *invindex.Slice // nil: the file exists already
	delta   *invindex.Delta
}

func memRanges(states []*cluster.NodeState) []savedRange {
	out := make([]savedRange, len(states))
	for i, st := range states {
		out[i] = savedRange{lo: st.Base.Lo(), hi: st.Base.Hi(), baseGen: st.BaseGen, base: st.Base, delta: &st.Delta}
	}
	return out
}

func diskRanges(states []*cluster.DiskState) []savedRange {
	out := make([]savedRange, len(states))
	for i, st := range states {
		out[i] = savedRange{lo: st.Lo, hi: st.Hi, baseGen: st.BaseGen, delta: &st.Delta}
	}
	return out
}

// save writes generation gen: the base slices not yet on disk, then the
// generation's document table and deltas.
func (s *indexStore) save(gen int64, instance string, p invindex.Params, docs *invindex.DocTable, states []savedRange) error {
	if err := os.MkdirAll(filepath.Join(s.dir, "slices"), 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	h := invindex.Header{Params: p, HashVersion: invindex.HashVersion, Instance: instance}
	keep := map[string]bool{}
	for _, st := range states {
		path := sliceFile(s.dir, st.lo, st.hi, st.baseGen)
		keep[filepath.Base(path)] = true
		if _, err := os.Stat(path); err == nil {
			continue // written by an earlier generation; files are never modified
		}
		if st.base == nil {
			return fmt.Errorf("base file %s of the master's disk copy is missing", path)
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
func (s *indexStore) writeBase(h invindex.Header, sl *invindex.Slice, gen int64, publish bool) error {
	path := sliceFile(s.dir, sl.Lo(), sl.Hi(), gen)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	h.Generation = gen
	tmp := path + ".tmp"
	if err := writeFile(tmp, func(w *bufio.Writer) error { return invindex.WriteSlice(w, h, sl) }); err != nil {
		return err
	}
	if !publish {
		return nil
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("publish %s: %w", path, err)
	}
	return nil
}

// diskFiles are the index store's base files as the master's disk copy
// (cluster.BaseFiles) sees them.
type diskFiles struct {
	s        *indexStore
	p        invindex.Params
	instance func() string
}

func (f *diskFiles) header() invindex.Header {
	return invindex.Header{Params: f.p, HashVersion: invindex.HashVersion, Instance: f.instance()}
}

func (f *diskFiles) ReadBase(lo, hi uint64, gen int64) (*invindex.Slice, error) {
	var base *invindex.Slice
	path := sliceFile(f.s.dir, lo, hi, gen)
	err := readFile(path, func(r *bufio.Reader) error {
		h, sl, err := invindex.ReadSlice(r)
		if err == nil {
			err = checkHeader(h, filepath.Base(path), gen, f.instance(), f.p)
		}
		base = sl
		return err
	})
	return base, err
}

func (f *diskFiles) HasBase(lo, hi uint64, gen int64) bool {
	_, err := os.Stat(sliceFile(f.s.dir, lo, hi, gen))
	return err == nil
}

func (f *diskFiles) WriteBase(sl *invindex.Slice, gen int64, publish bool) error {
	return f.s.writeBase(f.header(), sl, gen, publish)
}

func (f *diskFiles) PublishBase(lo, hi uint64, gen int64) error {
	path := sliceFile(f.s.dir, lo, hi, gen)
	if err := os.Rename(path+".tmp", path); err != nil {
		return fmt.Errorf("publish %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

func (f *diskFiles) DiscardBase(lo, hi uint64, gen int64) {
	_ = os.Remove(sliceFile(f.s.dir, lo, hi, gen) + ".tmp")
}

var _ cluster.BaseFiles = (*diskFiles)(nil)

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
func (s *indexStore) load(gen int64, instance string, p invindex.Params) (*invindex.DocTable, []*cluster.NodeState, error) {
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
func (s *indexStore) loadDisk(gen int64, instance string, p invindex.Params) (*invindex.DocTable, []*cluster.DiskState, error) {
	var states []*cluster.DiskState
	docs, err := s.loadWith(gen, instance, p, func(st *cluster.NodeState) { states = append(states, cluster.DiskStateOf(st)) })
	if err != nil {
		return nil, nil, err
	}
	return docs, states, nil
}

// loadWith reads generation gen and hands each range's state to add, in order.
func (s *indexStore) loadWith(gen int64, instance string, p invindex.Params, add func(*cluster.NodeState)) (*invindex.DocTable, error) {
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
		var base *invindex.Slice
		path := sliceFile(s.dir, hd.Lo, hd.Hi, delta.Base)
		if err := readFile(path, func(r *bufio.Reader) error {
			h, sl, err := invindex.ReadSlice(r)
			if err == nil {
				err = check(h, filepath.Base(path), delta.Base)
			}
			base = sl
			return err
		}); err != nil {
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
// referenced (keepSlices: file names), and leftovers of interrupted saves.
func (s *indexStore) prune(keep int64, keepSlices map[string]bool) error {
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
		if !keepSlices[e.Name()] && sliceGen(e.Name()) <= keep {
			os.Remove(filepath.Join(s.dir, "slices", e.Name()))
		}
	}
	return nil
}
