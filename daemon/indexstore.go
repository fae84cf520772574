package daemon

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/plagd/plagd/cluster"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

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

// save writes generation gen: the base slices not yet on disk, then the
// generation's document table and deltas.
func (s *indexStore) save(gen int64, instance string, p invindex.Params, docs *invindex.DocTable, states []*cluster.NodeState) error {
	if err := os.MkdirAll(filepath.Join(s.dir, "slices"), 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	h := invindex.Header{Params: p, HashVersion: invindex.HashVersion, Instance: instance}
	keep := map[string]bool{}
	for _, st := range states {
		path := sliceFile(s.dir, st.Base.Lo(), st.Base.Hi(), st.BaseGen)
		keep[filepath.Base(path)] = true
		if _, err := os.Stat(path); err == nil {
			continue // written by an earlier generation; files are never modified
		}
		hb := h
		hb.Generation = st.BaseGen
		tmp := path + ".tmp"
		if err := writeFile(tmp, func(w *bufio.Writer) error { return invindex.WriteSlice(w, hb, st.Base) }); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("publish %s: %w", path, err)
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
		hd.Lo, hd.Hi = st.Base.Lo(), st.Base.Hi()
		if err := writeFile(filepath.Join(tmp, fmt.Sprintf("delta-%03d.dlt", i)), func(w *bufio.Writer) error {
			return invindex.WriteDelta(w, hd, &st.Delta)
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
	dir := genDir(s.dir, gen)
	check := func(h invindex.Header, file string, want int64) error {
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
		return nil, nil, err
	}
	names, _ := filepath.Glob(filepath.Join(dir, "delta-*.dlt"))
	sort.Strings(names)
	var states []*cluster.NodeState
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
			return nil, nil, err
		}
		if hd.Lo != next {
			return nil, nil, fmt.Errorf("%s starts at chunk %d, expected %d: deltas missing", name, hd.Lo, next)
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
			return nil, nil, err
		}
		st, err := cluster.NewNodeState(base, delta.Base, *delta)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		states = append(states, st)
	}
	if next != p.SpaceSize() {
		return nil, nil, fmt.Errorf("index deltas in %s cover [0,%d), not the whole chunk space [0,%d)", dir, next, p.SpaceSize())
	}
	return docs, states, nil
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
		if !keepSlices[e.Name()] {
			os.Remove(filepath.Join(s.dir, "slices", e.Name()))
		}
	}
	return nil
}
