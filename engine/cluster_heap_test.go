package engine

import (
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/synth"
)

// TestCluster_MeasureMasterHeap measures the master's heap (HeapInuse after
// a GC) after a full run on 2 `plagd node` processes, with the master's copy
// on disk, without a df cap and with one (the copy stays on disk). A
// measurement:
//
//	PLAGD_MEASURE_HEAP_DOCS=20000 go test ./daemon -run TestCluster_MeasureMasterHeap -v -timeout 60m
func TestCluster_MeasureMasterHeap(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PLAGD_MEASURE_HEAP_DOCS"))
	if n == 0 {
		t.Skip("a measurement: set PLAGD_MEASURE_HEAP_DOCS=20000")
	}
	opt := synth.Defaults()
	opt.MeanWords = 1000
	g := synth.New(opt)
	url, pool := synthArchive(t, g, n)
	secret := secretFile(t)
	for _, mode := range []struct {
		name  string
		dfCap int
	}{{"disk copy (df_cap -1)", -1}, {"disk copy (df_cap 100)", 100}} {
		cfg := config.Default()
		cfg.DatabaseURL, cfg.DataDir = url, t.TempDir()
		cfg.Engine.DFCap = mode.dfCap
		for range 2 {
			p := startNodeProc(t, "127.0.0.1:0", secret)
			cfg.Cluster.Nodes = append(cfg.Cluster.Nodes, p.addr)
		}
		cfg.Cluster.SecretFile = secret
		e := NewEngine(cfg, pool, enginetest.Logger(t))
		rep := mustRun(t, e, true)
		e.WaitSaved()
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		held := 0
		for _, m := range mirroredNodes(e) {
			held += m.ResidentPostings()
		}
		t.Logf("%d docs, %d postings, %s: master HeapInuse %d MiB, copy holds %d postings in memory, full run %s",
			n, rep.Postings, mode.name, ms.HeapInuse>>20, held, rep.Duration)
		runtime.KeepAlive(e)
		e.Close()
	}
}
