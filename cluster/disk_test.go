package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/clustertest"
	"github.com/plagd/plagd/invindex"
)

// memFiles is BaseFiles in memory, as slice file bytes.
type memFiles struct {
	mu    sync.Mutex
	files map[string][]byte // name → bytes; temporary names end in .tmp
}

func baseName(lo, hi uint64, gen int64) string {
	return fmt.Sprintf("slice-%d-%d-g%d.idx", lo, hi, gen)
}

func (f *memFiles) ReadBase(lo, hi uint64, gen int64) (*invindex.Slice, error) {
	f.mu.Lock()
	b, ok := f.files[baseName(lo, hi, gen)]
	f.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no base %s", baseName(lo, hi, gen))
	}
	_, s, err := invindex.ReadSlice(bytes.NewReader(b))
	return s, err
}

func (f *memFiles) HasBase(lo, hi uint64, gen int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.files[baseName(lo, hi, gen)]
	return ok
}

func (f *memFiles) WriteBase(s *invindex.Slice, gen int64, publish bool) error {
	var b bytes.Buffer
	if err := invindex.WriteSlice(&b, invindex.Header{Generation: gen}, s); err != nil {
		return err
	}
	name := baseName(s.Lo(), s.Hi(), gen)
	if !publish {
		name += ".tmp"
	}
	f.mu.Lock()
	f.files[name] = b.Bytes()
	f.mu.Unlock()
	return nil
}

func (f *memFiles) PublishBase(lo, hi uint64, gen int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := baseName(lo, hi, gen)
	b, ok := f.files[name+".tmp"]
	if !ok {
		return fmt.Errorf("nothing to publish as %s", name)
	}
	delete(f.files, name+".tmp")
	f.files[name] = b
	return nil
}

func (f *memFiles) DiscardBase(lo, hi uint64, gen int64) {
	f.mu.Lock()
	delete(f.files, baseName(lo, hi, gen)+".tmp")
	f.mu.Unlock()
}

// stateBytes is st as a slice file and a delta file.
func stateBytes(t testing.TB, st *cluster.NodeState) []byte {
	t.Helper()
	var b bytes.Buffer
	h := invindex.Header{Generation: st.BaseGen, Lo: st.Base.Lo(), Hi: st.Base.Hi()}
	if err := invindex.WriteSlice(&b, h, st.Base); err != nil {
		t.Fatal(err)
	}
	if err := invindex.WriteDelta(&b, h, &st.Delta); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDiskMirror_SameAsMemory drives the same random history through a
// master whose copy is in memory and one whose copy is on disk (remotes:
// LocalNodes), with deltas only, the default ratio, and compaction at every
// run. After every run both tables equal the reference, the disk copy read
// back from its files equals the in-memory copy byte for byte (base file,
// delta), and the disk copy holds only its delta's postings. Aborted runs
// leave no file; a re-split from the files equals the in-memory re-split.
// All of it without and with a df cap (the disk copy then reads its base
// file to find the flipped documents).
func TestDiskMirror_SameAsMemory(t *testing.T) {
	for _, tc := range []struct{ dfCap, ratio int }{{0, 8}, {0, 1 << 30}, {0, 1}, {2, 8}, {2, 1 << 30}, {2, 1}} {
		ratio := tc.ratio
		t.Run(fmt.Sprintf("dfcap=%d/compact=%d", tc.dfCap, ratio), func(t *testing.T) {
			defer cluster.SetCompactRatio(cluster.SetCompactRatio(ratio))
			s := seed(t)
			gen := &clustertest.TextGen{Rng: rand.New(rand.NewPCG(s, 11))}
			rng := rand.New(rand.NewPCG(s, 12))
			base := cluster.Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, MinShared: 1, TopK: 4, BatchSize: 4, DFCap: tc.dfCap}
			bounds := invindex.SplitRange(base.Params.SpaceSize(), 3)
			files := &memFiles{files: map[string][]byte{}}
			var mem, disk []*cluster.Mirrored
			var memNodes, diskNodes []cluster.Node
			for i := range 3 {
				mm := cluster.NewMirrored(cluster.NewLocalNode(0, 0), cluster.NewLocalNode(bounds[i], bounds[i+1]), zerolog.Nop())
				dm := cluster.NewDiskMirrored(cluster.NewLocalNode(0, 0), cluster.NewDiskMirror(files, bounds[i], bounds[i+1]), zerolog.Nop())
				mem, disk = append(mem, mm), append(disk, dm)
				memNodes, diskNodes = append(memNodes, mm), append(diskNodes, dm)
			}
			masters := []*cluster.Master{cluster.NewMaster(memNodes, zerolog.Nop()), cluster.NewMaster(diskNodes, zerolog.Nop())}
			archives := []*clustertest.Archive{clustertest.NewArchive(base.TopK), clustertest.NewArchive(base.TopK)}
			live := map[int64]string{}
			var nextID int64
			compactions := 0
			for run := int64(1); run <= 20; run++ {
				for n := rng.IntN(5) + 1; n > 0; n-- {
					if nextID > 3 && rng.IntN(3) == 0 {
						id := 1 + rng.Int64N(nextID)
						live[id] = gen.Text()
					} else {
						nextID++
						live[nextID] = gen.Text()
					}
				}
				full := run == 1 || rng.IntN(8) == 0
				abort := run > 1 && rng.IntN(6) == 0
				for i, m := range masters {
					a := archives[i]
					for id, text := range live {
						if a.Live[id] != text {
							a.Live[id] = text
							a.Changed[id] = true
						}
					}
					p := a.Plan(full, base)
					p.Run = run
					out, err := m.Run(context.Background(), p, a)
					if err != nil {
						t.Fatalf("run %d: %v", run, err)
					}
					if abort && i == 1 {
						// The disk master aborts once and runs again: no
						// staged file survives, and the retry is exact.
						m.Abort(context.Background())
						for name := range files.files {
							if len(name) > 4 && name[len(name)-4:] == ".tmp" {
								t.Fatalf("run %d: %s left after Abort", run, name)
							}
						}
						if out, err = m.Run(context.Background(), p, a); err != nil {
							t.Fatalf("run %d again: %v", run, err)
						}
					}
					a.Commit(full, out)
					if err := m.Commit(context.Background(), run); err != nil {
						t.Fatal(err)
					}
					if got, want := a.Table(), clustertest.Reference(live, base); !slices.Equal(got, want) {
						t.Fatalf("master %d run %d: table differs from the reference", i, run)
					}
				}
				for i := range mem {
					mst, mgen := mem[i].Snapshot()
					dst, dgen := disk[i].Snapshot()
					if mgen != dgen || !bytes.Equal(stateBytes(t, mst), stateBytes(t, dst)) {
						t.Fatalf("run %d node %d: disk copy (g%d, base g%d) differs from the in-memory copy (g%d, base g%d)",
							run, i, dgen, dst.BaseGen, mgen, mst.BaseGen)
					}
					if got, want := cluster.OverSet(disk[i], tc.dfCap).Keys(), mst.Over(tc.dfCap).Keys(); !slices.Equal(got, want) {
						t.Fatalf("run %d node %d: disk copy's over-cap set %v, in memory %v", run, i, got, want)
					}
					if !full && mst.BaseGen == run {
						compactions++
					}
					if got, want := disk[i].ResidentPostings(), mst.Delta.Postings(); got != want {
						t.Fatalf("run %d node %d: disk copy holds %d postings, its delta has %d", run, i, got, want)
					}
					if mem[i].ResidentPostings() != mst.Base.Postings()+mst.Delta.Postings() {
						t.Fatal("in-memory accounting")
					}
				}
			}
			t.Logf("compactions: %d", compactions)
			if ratio == 1<<30 && compactions == 0 {
				t.Fatal("no compaction")
			}

			// Re-split over 2 ranges: from the files, and in memory.
			nb := invindex.SplitRange(base.Params.SpaceSize(), 2)
			ref := cluster.NewMaster(cluster.NewLocalNodes(base.Params, 2), zerolog.Nop())
			var memStates []*cluster.NodeState
			var diskStates []*cluster.DiskState
			g := masters[0].Generation()
			for i := range mem {
				st, _ := mem[i].Snapshot()
				memStates = append(memStates, st)
				ds, _, _ := disk[i].DiskState()
				diskStates = append(diskStates, ds)
			}
			if err := ref.Install(masters[0].Docs(), memStates, g); err != nil {
				t.Fatal(err)
			}
			dm := cluster.NewMaster([]cluster.Node{cluster.NewDiskMirror(files, nb[0], nb[1]), cluster.NewDiskMirror(files, nb[1], nb[2])}, zerolog.Nop())
			if err := dm.InstallDisk(masters[1].Docs(), files, diskStates, g); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				want, _ := ref.Nodes()[i].Snapshot()
				got, _ := dm.Nodes()[i].Snapshot()
				if !bytes.Equal(stateBytes(t, want), stateBytes(t, got)) {
					t.Fatalf("re-split range %d: from the files differs from in memory", i)
				}
			}
		})
	}
}
