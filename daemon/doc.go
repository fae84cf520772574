// Package daemon is the plagd process that stays up (`plagd serve`): it
// decides when runs happen and keeps serving while the database comes and
// goes. The runs themselves are package engine's.
//
//   - schedule: a cron expression, plus a prompt run shortly after documents
//     change (PostgreSQL LISTEN/NOTIFY on the change log, with polling as a
//     fallback), debounced so that a bulk upload makes one run;
//   - the master lock (lock.go): one master per database, a PostgreSQL
//     advisory lock held by a dedicated session; a run commits only while
//     that session still holds it (engine.Fence), so two masters never
//     commit, even in the moment before a lost lock is noticed;
//   - health (health.go): /healthz, /readyz and the database watch that
//     pauses runs during an outage and takes the lock again afterwards;
//   - metrics (metrics*.go): Prometheus counters and histograms of runs,
//     phases, node traffic and the extraction sandbox;
//   - logging (logging.go): zerolog, JSON or console;
//   - the HTTP listener that serves those endpoints and the web interface.
//
// Its own SQL is the master lock's and the LISTEN on the change log; the
// metrics' document counts are store.CountDocuments. `plagd ingest` is package ingest's, the status
// summary (runs, pending changes, failed documents) is store.LoadStatus,
// and whether a run is due asks engine.PendingChanges (store's one
// definition of a pending document).
package daemon
