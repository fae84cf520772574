// Package pgtest gives integration tests a real PostgreSQL: a fresh, migrated
// database per test, created in milliseconds from a template.
//
// Every package with database tests calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// and then, in a test:
//
//	url := pgtest.NewDB(t)        // migrated database, dropped after the test
//	pool := pgtest.Pool(t, url)   // closed after the test
//
// The server is PLAGD_TEST_DATABASE_URL when set (a postgres:// URL of a role
// allowed to CREATE DATABASE). Otherwise the first test that needs a database
// starts one throwaway cluster for the whole test binary (initdb into a
// temporary directory, unix socket only, fsync off), stopped and deleted when
// the tests end. Without PostgreSQL binaries the tests fail, telling how to
// install them, unless PLAGD_TEST_SKIP_DB=1, which skips them instead.
package pgtest
