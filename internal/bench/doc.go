// Package bench is plagd's end-to-end performance measurement (`plagd
// bench`): chunking and index-build throughput on a generated corpus, a full
// and an incremental run against PostgreSQL, peak memory per posting, and a
// COPY probe of the similarities table. Every figure comes with its input
// size and the machine, so docs/PERFORMANCE.md can quote it as measured.
package bench
