package daemon

import (
	"testing"
	"time"

	"github.com/plagd/plagd/engine"
)

// TestMetrics_PhasesAreTheLastRunsOnly: plagd_last_run_phase_seconds holds
// the phases of the last committed run, not a phase an earlier run of
// another kind had (a full run's related_join after an incremental run).
func TestMetrics_PhasesAreTheLastRunsOnly(t *testing.T) {
	m := NewMetrics()
	phases := func() map[string]float64 {
		t.Helper()
		fams, err := m.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, f := range fams {
			if f.GetName() != "plagd_last_run_phase_seconds" {
				continue
			}
			for _, mt := range f.GetMetric() {
				out[mt.GetLabel()[0].GetValue()] = mt.GetGauge().GetValue()
			}
		}
		return out
	}
	m.ObserveRun(engine.RunReport{Kind: "full", Phases: map[string]time.Duration{"commit": 2 * time.Second, "related_join": 3 * time.Second}})
	if p := phases(); len(p) != 2 || p["related_join"] != 3 {
		t.Fatalf("after a full run: phases %v, want commit and related_join", p)
	}
	m.ObserveRun(engine.RunReport{Kind: "incremental", Phases: map[string]time.Duration{"commit": time.Second}})
	if p := phases(); len(p) != 1 || p["commit"] != 1 {
		t.Fatalf("after an incremental run: phases %v, want its commit alone (1 s)", p)
	}
}
