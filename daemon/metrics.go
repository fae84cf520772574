package daemon

import (
	"github.com/plagd/plagd/engine"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are plagd's Prometheus metrics. They live in their own registry so
// that tests can create several daemons in one process.
type Metrics struct {
	Registry *prometheus.Registry

	runs        *prometheus.CounterVec
	runDuration *prometheus.HistogramVec
	phase       *prometheus.GaugeVec
	docs        *prometheus.CounterVec
	rowsWritten prometheus.Counter
	postings    prometheus.Gauge
	indexBytes  prometheus.Gauge
	lastSuccess prometheus.Gauge
	pending     prometheus.Gauge
	documents   *prometheus.GaugeVec
	nodeBytes   *prometheus.CounterVec
}

// NewMetrics registers every metric plagd exports.
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		Registry: r,
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "plagd_runs_total", Help: "Runs finished, by kind (full, incremental) and status (committed, failed)."},
			[]string{"kind", "status"}),
		runDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "plagd_run_duration_seconds", Help: "Wall time of committed runs.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 16)}, []string{"kind"}),
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "plagd_last_run_phase_seconds", Help: "Wall time of each phase of the last committed run."},
			[]string{"phase"}),
		docs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "plagd_documents_processed_total", Help: "Documents handled by runs, by result (indexed, failed, deleted, recomputed)."},
			[]string{"result"}),
		rowsWritten: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "plagd_similarity_rows_written_total", Help: "Similarity rows written to PostgreSQL."}),
		postings: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "plagd_index_postings", Help: "(chunk, document) pairs in the current index."}),
		indexBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "plagd_index_bytes", Help: "Memory held by the current index arrays."}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "plagd_last_committed_run_timestamp_seconds", Help: "When the last run committed (Unix time)."}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "plagd_pending_changes", Help: "Documents with changes not yet consumed by a run."}),
		documents: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "plagd_documents", Help: "Documents in the archive by state (indexed, failed, pending, deleted), as the status page counts them."},
			[]string{"status"}),
		nodeBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "plagd_node_bytes_total", Help: "Bytes of gRPC messages exchanged with remote nodes (cluster.nodes) by runs, committed or not, by direction (to_nodes, from_nodes)."},
			[]string{"direction"}),
	}
	r.MustRegister(m.runs, m.runDuration, m.phase, m.docs, m.rowsWritten, m.postings, m.indexBytes,
		m.lastSuccess, m.pending, m.documents, m.nodeBytes)
	return m
}

func (m *Metrics) ObserveRun(rep engine.RunReport) {
	m.runs.WithLabelValues(rep.Kind, "committed").Inc()
	m.runDuration.WithLabelValues(rep.Kind).Observe(rep.Duration.Seconds())
	// The last run's phases only: a phase another kind of run has (a full
	// run's related_join, a run's save) must not linger.
	m.phase.Reset()
	for name, d := range rep.Phases {
		m.phase.WithLabelValues(name).Set(d.Seconds())
	}
	m.docs.WithLabelValues("indexed").Add(float64(rep.Indexed))
	m.docs.WithLabelValues("failed").Add(float64(rep.Failed))
	m.docs.WithLabelValues("deleted").Add(float64(rep.Deleted))
	m.docs.WithLabelValues("recomputed").Add(float64(rep.Recomputed))
	m.rowsWritten.Add(float64(rep.RowsWritten))
	m.postings.Set(float64(rep.Postings))
	m.indexBytes.Set(float64(rep.IndexBytes))
	m.lastSuccess.SetToCurrentTime()
}

func (m *Metrics) observeFailure(kind string) {
	m.runs.WithLabelValues(kind, "failed").Inc()
}

func (m *Metrics) ObserveNodeBytes(to, from int64) {
	m.nodeBytes.WithLabelValues("to_nodes").Add(float64(to))
	m.nodeBytes.WithLabelValues("from_nodes").Add(float64(from))
}
