// Package enginetest holds what the tests of a run need on both sides of
// the engine: a seeded corpus and a mutator that change an archive the way
// integrators do, the test configuration that makes top-k lists fill up and
// lose members on small data, and the slow, obvious reference computation
// of the similarities table that every incremental run is checked against
// (incremental equals full, row for row).
//
// It imports no plagd package that runs (engine, daemon), so the engine's
// own tests and the daemon's can both use it.
package enginetest
