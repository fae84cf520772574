// Package migrations owns plagd's PostgreSQL schema. The schema is a series of
// SQL files, NNNN_name.sql, embedded in the binary so that a plagd binary and
// the schema it expects can never drift apart. Apply brings a database up to
// the newest version; Current reports where a database is.
//
// Each migration runs in its own transaction together with the row recording
// it in schema_migrations, so a failed migration leaves the database at the
// previous version, never half-way (PostgreSQL DDL is transactional).
package migrations
