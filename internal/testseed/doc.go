// Package testseed gives every randomised test of plagd one way to choose
// and report its seed, so that any failure can be replayed exactly: the
// -seed flag of the test binary, else PLAGD_TEST_SEED, else the clock. The
// seed is logged with the command that replays the test.
package testseed
