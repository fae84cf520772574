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

	"github.com/plagd/plagd/invindex"
)

// indexStore keeps index generations in the data directory:
//
//	<data_dir>/gen-<run id>/docs.tbl         document table (internal ID ↔ documents.id, chunk counts)
//	<data_dir>/gen-<run id>/slice-NNN.idx    one slice of the inverted index per node range
//
// A generation is written into a temporary directory, fsynced and renamed into
// place, so a directory named gen-N is always complete. Every file carries the
// format version, the parameters, the database's instance ID, the generation,
// and a checksum (invindex/doc.go); anything that does not match exactly is
// refused and the daemon rebuilds with a full run.
type indexStore struct {
	dir string
}

func genDir(dir string, gen int64) string { return filepath.Join(dir, fmt.Sprintf("gen-%d", gen)) }

// save writes generation gen.
func (s *indexStore) save(gen int64, instance string, p invindex.Params, docs *invindex.DocTable, slices []*invindex.Slice) error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	final := genDir(s.dir, gen)
	tmp, err := os.MkdirTemp(s.dir, fmt.Sprintf(".tmp-gen-%d-", gen))
	if err != nil {
		return fmt.Errorf("create temporary generation dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	h := invindex.Header{Params: p, HashVersion: invindex.HashVersion, Generation: gen, Instance: instance}
	if err := writeFile(filepath.Join(tmp, "docs.tbl"), func(w *bufio.Writer) error {
		return invindex.WriteDocTable(w, h, docs)
	}); err != nil {
		return err
	}
	for i, sl := range slices {
		hs := h
		hs.Lo, hs.Hi = sl.Lo(), sl.Hi()
		if err := writeFile(filepath.Join(tmp, fmt.Sprintf("slice-%03d.idx", i)), func(w *bufio.Writer) error {
			return invindex.WriteSlice(w, hs, sl)
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
	return syncDir(s.dir)
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
func (s *indexStore) load(gen int64, instance string, p invindex.Params) (*invindex.DocTable, []*invindex.Slice, error) {
	dir := genDir(s.dir, gen)
	check := func(h invindex.Header, file string) error {
		switch {
		case h.Instance != instance:
			return fmt.Errorf("%s belongs to another database (instance %q, want %q)", file, h.Instance, instance)
		case h.Generation != gen:
			return fmt.Errorf("%s is generation %d, want %d", file, h.Generation, gen)
		case h.Params != p:
			return fmt.Errorf("%s was built with parameters %+v, configuration says %+v", file, h.Params, p)
		case h.HashVersion != invindex.HashVersion:
			return fmt.Errorf("%s uses chunk hash version %d, this plagd has %d", file, h.HashVersion, invindex.HashVersion)
		}
		return nil
	}
	f, err := os.Open(filepath.Join(dir, "docs.tbl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w (%s)", errNoIndex, dir)
	} else if err != nil {
		return nil, nil, err
	}
	h, docs, err := invindex.ReadDocTable(bufio.NewReaderSize(f, 1<<20))
	f.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("read %s/docs.tbl: %w", dir, err)
	}
	if err := check(h, "docs.tbl"); err != nil {
		return nil, nil, err
	}
	names, _ := filepath.Glob(filepath.Join(dir, "slice-*.idx"))
	sort.Strings(names)
	var slices []*invindex.Slice
	var next uint64
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		h, sl, err := invindex.ReadSlice(bufio.NewReaderSize(f, 1<<20))
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", name, err)
		}
		if err := check(h, filepath.Base(name)); err != nil {
			return nil, nil, err
		}
		if sl.Lo() != next {
			return nil, nil, fmt.Errorf("%s starts at chunk %d, expected %d: slices missing", name, sl.Lo(), next)
		}
		next = sl.Hi()
		slices = append(slices, sl)
	}
	if next != p.SpaceSize() {
		return nil, nil, fmt.Errorf("index slices in %s cover [0,%d), not the whole chunk space [0,%d)", dir, next, p.SpaceSize())
	}
	return docs, slices, nil
}

// prune deletes every generation except keep, and leftovers of interrupted saves.
func (s *indexStore) prune(keep int64) error {
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
	return nil
}
