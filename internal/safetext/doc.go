// Package safetext makes text that came from outside (a file's bytes, a
// parser's error message quoting them, a file name, a query parameter) safe
// to store, log and show: valid UTF-8, no NUL or other control characters
// that PostgreSQL refuses or terminals interpret, and bounded in length.
//
// Every string derived from an uploaded file passes through here before it
// reaches PostgreSQL, a log line or a page: one hostile byte in a stored
// failure reason once failed a run's commit ("invalid byte sequence for
// encoding UTF8"), and the next run met the same document again.
package safetext
