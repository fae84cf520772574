package daemon

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/plagd/plagd/extract/sandbox"
)

// extractCollector exports an extraction pool's counts (extract/sandbox):
// processes started, stopped by reason, and alive.
type extractCollector struct {
	pool                  *sandbox.Pool
	started, killed, live *prometheus.Desc
}

func newExtractCollector(p *sandbox.Pool) *extractCollector {
	return &extractCollector{pool: p,
		started: prometheus.NewDesc("plagd_extract_processes_started_total",
			"Extraction child processes started (extract.isolate).", nil, nil),
		killed: prometheus.NewDesc("plagd_extract_processes_stopped_total",
			"Extraction child processes stopped, by reason: memory (over extract.memory_limit), timeout, crash, protocol, canceled, recycle, idle, close.",
			[]string{"reason"}, nil),
		live: prometheus.NewDesc("plagd_extract_processes",
			"Extraction child processes alive, busy or idle.", nil, nil)}
}

func (c *extractCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.started
	ch <- c.killed
	ch <- c.live
}

func (c *extractCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.pool.Stats()
	ch <- prometheus.MustNewConstMetric(c.started, prometheus.CounterValue, float64(st.Started))
	for _, why := range []string{"memory", "timeout", "crash", "protocol", "canceled", "recycle", "idle", "close"} {
		ch <- prometheus.MustNewConstMetric(c.killed, prometheus.CounterValue, float64(st.Killed[why]), why)
	}
	ch <- prometheus.MustNewConstMetric(c.live, prometheus.GaugeValue, float64(st.Live))
}

// WatchExtract exports p's counts with the other metrics.
func (m *Metrics) WatchExtract(p *sandbox.Pool) { m.Registry.MustRegister(newExtractCollector(p)) }
