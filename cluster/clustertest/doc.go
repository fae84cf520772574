// Package clustertest holds the test doubles that the tests of cluster and
// of the packages around it (cluster/remote) share: Archive, an in-memory
// stand-in for the daemon's PostgreSQL; Reference, the brute-force
// similarity table; TextGen, texts with passages copied between them; and
// History, a random sequence of changes to drive runs with.
//
// It imports cluster, so cluster's own tests that use it are external
// (package cluster_test) and see only cluster's exported API, as a daemon
// does.
package clustertest
