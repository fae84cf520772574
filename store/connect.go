package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/migrations"
)

// Schema version errors. They are the migrations package's sentinels, so
// errors.Is works whichever package returned the error; errors.As with a
// *SchemaError gives the two versions.
var (
	ErrNotMigrated  = migrations.ErrNotMigrated
	ErrSchemaTooNew = migrations.ErrSchemaTooNew
)

// SchemaError reports a schema version mismatch; see migrations.SchemaError.
type SchemaError = migrations.SchemaError

// connectTimeout bounds the first contact with the server, so that a wrong
// host fails in seconds with advice rather than hanging on a TCP timeout.
const connectTimeout = 15 * time.Second

// Connect opens a connection pool and checks that the server answers. It does
// not look at the schema (see CheckSchema), so `plagd migrate` can use it on
// an empty database. Connections are named "plagd" in pg_stat_activity unless
// the URL sets application_name.
func Connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx redacts the password in its message.
		return nil, fmt.Errorf("invalid database URL: %w (expected postgres://user:password@host:5432/dbname?sslmode=...)", err)
	}
	if _, set := cfg.ConnConfig.RuntimeParams["application_name"]; !set {
		cfg.ConnConfig.RuntimeParams["application_name"] = "plagd"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("cannot connect to PostgreSQL database %q on %s as user %q: %w (%s)",
			cfg.ConnConfig.Database, where(cfg), cfg.ConnConfig.User, err, connectAdvice(err))
	}
	return pool, nil
}

// where names the server for messages: host:port, or the socket directory.
func where(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	if len(c.Host) > 0 && c.Host[0] == '/' {
		return fmt.Sprintf("unix socket %s/.s.PGSQL.%d", c.Host, c.Port)
	}
	return fmt.Sprintf("%s:%d", c.Host, c.Port)
}

// connectAdvice suggests what to check for the common failures.
func connectAdvice(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return "check the user name and password in the database URL, and pg_hba.conf on the server"
		case "3D000": // invalid_catalog_name
			return "the database does not exist: create it (createdb) or fix the name in the database URL"
		case "53300": // too_many_connections
			return "the server has no free connections: raise max_connections or stop idle clients"
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + connectTimeout.String() + ": check the host name, port and firewall"
	}
	return "check that PostgreSQL is running and that the host, port, user, password and sslmode in the database URL are right"
}

// CheckSchema verifies that the database's schema is the version this binary
// was built for. Commands that use the schema call it before doing anything,
// so that an old database fails with "run plagd migrate" instead of an SQL
// error deep inside a run, and an old binary never writes to a newer schema.
// It returns nil, or a *SchemaError wrapping ErrNotMigrated or ErrSchemaTooNew.
func CheckSchema(ctx context.Context, pool *pgxpool.Pool) error {
	have, err := migrations.Current(ctx, pool)
	if err != nil {
		return err
	}
	return migrations.Check(have)
}
