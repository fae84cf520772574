package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/cluster"
	"github.com/plagd/plagd/cluster/clustertest"
	"github.com/plagd/plagd/invindex"
)

// templateGen makes texts of which some carry one of a few shared template
// paragraphs, so that the template chunks' df hovers around a small cap as
// documents come, change and go.
type templateGen struct {
	rng  *rand.Rand
	text *clustertest.TextGen
}

func (g *templateGen) Text() string {
	t := g.text.Text()
	if n := g.rng.IntN(5); n < 3 {
		var b strings.Builder
		for i := range 12 {
			fmt.Fprintf(&b, "tpl%d_%d ", n, i)
		}
		if g.rng.IntN(2) == 0 {
			return b.String() + t
		}
		return t + " " + b.String()
	}
	return t
}

// reopen returns st as a restart reads it: written to bytes and read back,
// with nothing derived kept.
func reopen(t *testing.T, st *cluster.NodeState) *cluster.NodeState {
	t.Helper()
	r := bytes.NewReader(stateBytes(t, st))
	_, base, err := invindex.ReadSlice(r)
	if err != nil {
		t.Fatal(err)
	}
	_, delta, err := invindex.ReadDelta(r)
	if err != nil {
		t.Fatal(err)
	}
	nst, err := cluster.NewNodeState(base, st.BaseGen, *delta)
	if err != nil {
		t.Fatal(err)
	}
	return nst
}

// TestMaster_DFCapCrossesWithDelta: template chunks cross a small df cap
// up and down over many incremental runs, with the delta kept (ratio 1:
// compaction only once the delta outgrows the base), the default ratio and
// compaction at every run with a change (ratio 2^30), on 1
// and 3 in-process nodes, on 2 remotes with the master's copy on disk, and
// on 3 nodes restarted from their files every few runs. After every run
// every table equals the reference (incremental equals full); the over-cap
// sets must have grown and shrunk, and with ratio 1 the nodes must have
// kept a delta.
func TestMaster_DFCapCrossesWithDelta(t *testing.T) {
	for _, ratio := range []int{1 << 30, 8, 1} {
		t.Run(fmt.Sprintf("compact=%d", ratio), func(t *testing.T) {
			defer cluster.SetCompactRatio(cluster.SetCompactRatio(ratio))
			s := seed(t)
			rng := rand.New(rand.NewPCG(s, 21))
			gen := &templateGen{rng: rand.New(rand.NewPCG(s, 22)), text: &clustertest.TextGen{Rng: rand.New(rand.NewPCG(s, 23))}}
			base := cluster.Plan{Params: invindex.Params{WindowWords: 3, ChunkBits: 20}, MinShared: 2, TopK: 3, BatchSize: 4, DFCap: 4}
			files := &memFiles{files: map[string][]byte{}}
			bounds := invindex.SplitRange(base.Params.SpaceSize(), 2)
			var disk []cluster.Node
			for i := range 2 {
				disk = append(disk, cluster.NewDiskMirrored(cluster.NewLocalNode(0, 0),
					cluster.NewDiskMirror(files, bounds[i], bounds[i+1]), zerolog.Nop()))
			}
			masters := []*cluster.Master{
				cluster.NewMaster(cluster.NewLocalNodes(base.Params, 1), zerolog.Nop()),
				cluster.NewMaster(cluster.NewLocalNodes(base.Params, 3), zerolog.Nop()),
				cluster.NewMaster(disk, zerolog.Nop()),
				cluster.NewMaster(cluster.NewLocalNodes(base.Params, 3), zerolog.Nop()), // restarted from files
			}
			const restarted = 3
			archives := make([]*clustertest.Archive, len(masters))
			for i := range archives {
				archives[i] = clustertest.NewArchive(base.TopK)
			}
			live := map[int64]string{}
			var nextID int64
			var grew, shrank, kept bool
			lastOver := 0
			for run := int64(1); run <= 40; run++ {
				changes := templateChanges(rng, gen, live, &nextID, run > 24)
				full := run == 1 || rng.IntN(15) == 0
				want := clustertest.Reference(live, base)
				if run%7 == 0 {
					masters[restarted] = restart(t, masters[restarted], base.Params)
				}
				for i, m := range masters {
					a := archives[i]
					a.Apply(changes)
					if err := a.Run(context.Background(), m, run, full, base); err != nil {
						t.Fatalf("master %d run %d: %v", i, run, err)
					}
					if got := a.Table(); !slices.Equal(got, want) {
						t.Fatalf("master %d run %d (full=%v): table differs from the reference\n got %v\nwant %v", i, run, full, got, want)
					}
				}
				over := 0
				for _, n := range masters[1].Nodes() {
					st, _ := n.Snapshot()
					over += st.Over(base.DFCap).Len()
					kept = kept || len(st.Delta.Docs) > 0
				}
				grew, shrank = grew || over > lastOver, shrank || over < lastOver
				lastOver = over
			}
			if !grew || !shrank {
				t.Fatalf("the over-cap set never grew (%v) or never shrank (%v)", grew, shrank)
			}
			if ratio == 1 && !kept {
				t.Fatal("capped runs kept no delta")
			}
		})
	}
}

// templateChanges makes one run's changes (1 to 5: new documents, edits,
// deletions; mostly deletions when shrink is set, so that template chunks
// fall back under the cap) and applies them to live.
func templateChanges(rng *rand.Rand, gen *templateGen, live map[int64]string, nextID *int64, shrink bool) []clustertest.Change {
	adds, edits := 6, 8 // of ten: grow by 0.4 documents a change
	if shrink {
		adds, edits = 1, 4 // shrink by 0.5
	}
	var changes []clustertest.Change
	for n := rng.IntN(5) + 1; n > 0; n-- {
		ids := slices.Sorted(maps.Keys(live))
		switch op := rng.IntN(10); {
		case op < adds || len(ids) < 6:
			*nextID++
			changes = append(changes, clustertest.Change{ID: *nextID, Text: gen.Text()})
		case op < edits:
			changes = append(changes, clustertest.Change{ID: ids[rng.IntN(len(ids))], Text: gen.Text()})
		default:
			changes = append(changes, clustertest.Change{ID: ids[rng.IntN(len(ids))], Hard: true})
		}
		c := changes[len(changes)-1]
		if c.Hard {
			delete(live, c.ID)
		} else {
			live[c.ID] = c.Text
		}
	}
	return changes
}

// restart returns a new master on fresh nodes holding m's committed index
// as read back from files.
func restart(t *testing.T, m *cluster.Master, p invindex.Params) *cluster.Master {
	t.Helper()
	var states []*cluster.NodeState
	for _, n := range m.Nodes() {
		st, _ := n.Snapshot()
		states = append(states, reopen(t, st))
	}
	nm := cluster.NewMaster(cluster.NewLocalNodes(p, len(states)), zerolog.Nop())
	if err := nm.Install(m.Docs().Clone(), states, m.Generation()); err != nil {
		t.Fatal(err)
	}
	return nm
}
