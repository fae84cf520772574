// Package testlog is a log sink for tests: a buffer that the goroutines
// of the code under test may write (a server's handlers, a progress
// logger) while the test reads what they wrote.
package testlog
