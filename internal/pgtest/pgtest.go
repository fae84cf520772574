package pgtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/migrations"
)

// Environment variables that steer the harness.
const (
	EnvURL    = "PLAGD_TEST_DATABASE_URL" // use this server instead of a throwaway cluster
	EnvSkipDB = "PLAGD_TEST_SKIP_DB"      // "1": skip database tests when no server is available
)

var (
	setupOnce sync.Once
	setupErr  error
	serverURL string     // admin database URL (CREATE/DROP DATABASE are run there)
	srv       *pgCluster // nil when EnvURL is used
	template  string     // migrated template database; NewDB copies it
	dbSeq     atomic.Int64

	cleanupOnce sync.Once
	settingUp   atomic.Bool // true once setup may have created something to remove
)

// Main runs the tests and then removes what the harness created: the
// template database, and the throwaway cluster if one was started. It also
// cleans up on SIGINT/SIGTERM. If the test binary dies otherwise (a panic, a
// kill), the postmaster still stops, because it is started with a parent-death
// signal, and the next test run deletes the stale directory.
func Main(m *testing.M) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		if !settingUp.Load() {
			// Nothing to remove: act as if pgtest were not listening, so
			// that a helper process's own signal handling (or the default
			// action) decides.
			signal.Stop(sig)
			_ = syscall.Kill(os.Getpid(), s.(syscall.Signal))
			return
		}
		cleanup()
		fmt.Fprintf(os.Stderr, "pgtest: %v: test database removed\n", s)
		os.Exit(1)
	}()
	code := m.Run()
	signal.Stop(sig)
	cleanup()
	os.Exit(code)
}

func cleanup() {
	cleanupOnce.Do(func() {
		if template != "" && srv == nil {
			// A shared server outlives us: drop what we made there.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := adminExec(ctx, "drop database if exists "+pgx.Identifier{template}.Sanitize()+" with (force)"); err != nil {
				fmt.Fprintf(os.Stderr, "pgtest: drop template database %s: %v\n", template, err)
			}
		}
		if srv != nil {
			srv.stop()
		}
	})
}

// setup finds or starts the server and builds the migrated template, once per
// test binary.
func setup() error {
	setupOnce.Do(func() { setupErr = doSetup() })
	return setupErr
}

func doSetup() error {
	settingUp.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if u := os.Getenv(EnvURL); u != "" {
		if _, err := url.Parse(u); err != nil || !strings.HasPrefix(u, "postgres") {
			return fmt.Errorf("%s must be a postgres:// URL, got %q", EnvURL, u)
		}
		serverURL = u
	} else {
		c, err := startCluster(ctx, false)
		if err != nil {
			return err
		}
		srv = c
		serverURL = c.url
	}
	probe, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return fmt.Errorf("cannot connect to the test server %s: %w", redact(serverURL), err)
	}
	probe.Close(ctx)
	// The template name is unique per test binary: packages' tests run in
	// parallel and may share one PLAGD_TEST_DATABASE_URL server.
	name := fmt.Sprintf("plagd_tpl_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	if err := adminExec(ctx, "create database "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("create template database on %s: %w (the role needs CREATEDB)", redact(serverURL), err)
	}
	template = name
	conn, err := pgx.Connect(ctx, withDatabase(serverURL, name))
	if err != nil {
		return fmt.Errorf("connect to template database: %w", err)
	}
	_, err = migrations.Apply(ctx, conn)
	conn.Close(ctx) // CREATE DATABASE ... TEMPLATE needs the template idle.
	if err != nil {
		return fmt.Errorf("migrate template database: %w", err)
	}
	return nil
}

// requireServer fails (or, with PLAGD_TEST_SKIP_DB=1, skips) t when there is no server.
func requireServer(t testing.TB) {
	t.Helper()
	if err := setup(); err != nil {
		if os.Getenv(EnvSkipDB) == "1" {
			t.Skipf("no PostgreSQL (%s=1): %v", EnvSkipDB, err)
		}
		t.Fatalf("pgtest: %v", err)
	}
}

// ServerURL returns the URL of the server's administrative database, starting
// the server if needed. It panics when no server can be had; tests should
// normally call NewDB first, which fails or skips cleanly instead.
func ServerURL() string {
	if err := setup(); err != nil {
		panic("pgtest: " + err.Error())
	}
	return serverURL
}

// NewDB creates a fresh database with the current schema (all migrations
// applied), drops it when t ends, and returns its URL.
func NewDB(t testing.TB) string {
	t.Helper()
	requireServer(t)
	return createDB(t, "template "+pgx.Identifier{template}.Sanitize())
}

// NewEmptyDB is NewDB without the schema: for tests of migration itself and
// of how plagd treats a database it has never seen.
func NewEmptyDB(t testing.TB) string {
	t.Helper()
	requireServer(t)
	return createDB(t, "template template0")
}

func createDB(t testing.TB, from string) string {
	t.Helper()
	name := dbName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := adminExec(ctx, "create database "+pgx.Identifier{name}.Sanitize()+" "+from); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// FORCE ends sessions a test left open, so a leaked connection cannot
		// make the drop (and the next run's database names) fail.
		if err := adminExec(ctx, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return withDatabase(serverURL, name)
}

var nonIdent = regexp.MustCompile(`[^a-z0-9]+`)

// dbName makes a unique, readable database name from the test name, so that a
// leftover database on a shared server says which test made it.
func dbName(test string) string {
	base := strings.Trim(nonIdent.ReplaceAllString(strings.ToLower(test), "_"), "_")
	suffix := fmt.Sprintf("_%d_%d", os.Getpid(), dbSeq.Add(1))
	const maxLen = 63 // NAMEDATALEN-1
	if len("t_")+len(base)+len(suffix) > maxLen {
		base = base[:maxLen-len("t_")-len(suffix)]
	}
	return "t_" + base + suffix
}

// Pool opens a connection pool to url and closes it when t ends.
func Pool(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatalf("pgtest: open pool: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		t.Fatalf("pgtest: connect to %s: %v", redact(url), err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Exec runs one statement and fails t if it errors.
func Exec(t testing.TB, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("pgtest: exec %q: %v", sql, err)
	}
}

// adminExec runs one statement on the administrative database. CREATE and
// DROP DATABASE are rare, so a connection per call keeps things simple.
func adminExec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// withDatabase returns base with its database name replaced.
func withDatabase(base, db string) string {
	u, err := url.Parse(base)
	if err != nil {
		panic(err) // validated in doSetup
	}
	u.Path = "/" + db
	u.RawPath = ""
	return u.String()
}

// redact hides a password for error messages.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// ---- throwaway cluster ----

// pgCluster is a PostgreSQL server private to this test binary.
type pgCluster struct {
	dir  string // owns everything: data/, the socket, the log
	url  string
	proc *os.Process
	done chan struct{} // closed when the postmaster has exited

	bin, data, logPath string
	port               int
	cred               *syscall.Credential
	// durable makes a commit wait for its WAL to reach the kernel, so that
	// an immediate shutdown (the process dies, the machine does not) keeps
	// every acknowledged transaction; fsync stays off.
	durable bool
}

const (
	dirPrefix = "plagd-pgtest-"
	ownerFile = "owner.pid" // pid of the test binary, for the stale-directory sweep
)

var installHint = "no PostgreSQL server binaries found (looked in /usr/lib/postgresql/*/bin and PATH): " +
	"install postgresql (apt-get install postgresql), or set " + EnvURL + " to a server's postgres:// URL, " +
	"or set " + EnvSkipDB + "=1 to skip database tests"

// startCluster runs initdb and starts postgres as a child process. As root it
// runs them as the "postgres" user, since PostgreSQL refuses to run as root.
func startCluster(ctx context.Context, durable bool) (*pgCluster, error) {
	bin, err := findBinDir()
	if err != nil {
		return nil, err
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	base := tempBase()
	sweepStale(base)
	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("create cluster directory: %w", err)
	}
	c := &pgCluster{dir: dir, done: make(chan struct{}), durable: durable}
	ok := false
	defer func() {
		if !ok {
			c.stop()
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("hand the cluster directory to the postgres user: %w", err)
		}
	}
	data := filepath.Join(dir, "data")
	logPath := filepath.Join(dir, "postgres.log")

	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"),
		"-D", data, "-A", "trust", "-U", "plagd", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb (%s): %w\n%s", bin, err, out)
	}

	c.bin, c.cred, c.data, c.logPath = bin, cred, data, logPath
	c.port = 20000 + rand.IntN(40000) // the socket directory is private; a port cannot clash
	c.url = fmt.Sprintf("postgres://plagd@/postgres?host=%s&port=%d&sslmode=disable", url.QueryEscape(dir), c.port)
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

// start runs the postmaster on the cluster's data directory and port and
// waits until it accepts connections.
func (c *pgCluster) start(ctx context.Context) error {
	logf, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	syncCommit := "off"
	if c.durable {
		syncCommit = "on"
	}
	pg := exec.Command(filepath.Join(c.bin, "postgres"),
		"-D", c.data, "-k", c.dir, "-p", strconv.Itoa(c.port),
		"-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit="+syncCommit, "-c", "full_page_writes=off",
		"-c", "max_connections=200",
		// No autovacuum: an ANALYZE in progress holds a transaction id, and
		// a run consumes only the changes older than every transaction
		// still open (engine's change-set boundary), so a worker that
		// happened to analyse a table while a test changed documents held
		// those changes back from the run the test then checked (CI,
		// 2026-11-26: TestEngine_IncrementalEqualsFull saw a stale list).
		// In production they wait for the next run; a test that compares a
		// run with the archive must not depend on a worker's timing.
		"-c", "autovacuum=off",
	)
	pg.Dir = c.dir
	pg.Stdout, pg.Stderr = logf, logf
	// SIGQUIT is PostgreSQL's immediate shutdown: if the test binary dies
	// without cleaning up, the kernel stops the server for us.
	pg.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := pg.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	done := make(chan struct{})
	c.proc, c.done = pg.Process, done
	go func() { pg.Wait(); close(done) }()
	return c.waitReady(ctx, c.logPath)
}

// waitReady polls until the server accepts connections.
func (c *pgCluster) waitReady(ctx context.Context, logPath string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, c.url)
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-c.done:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres exited during startup:\n%s", log)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres did not accept connections within 60s: %v\n%s", err, log)
		}
	}
}

// stop shuts the server down immediately (its data is thrown away anyway)
// and deletes the directory.
func (c *pgCluster) stop() {
	c.halt()
	os.RemoveAll(c.dir)
}

// halt shuts the server down immediately, as `pg_ctl stop -m immediate`
// does (SIGQUIT to the postmaster): every session is cut without a
// checkpoint, and the next start goes through crash recovery.
func (c *pgCluster) halt() {
	if c.proc != nil {
		c.proc.Signal(syscall.SIGQUIT)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			c.proc.Kill()
			<-c.done
		}
		c.proc = nil
	}
}

// findBinDir returns the newest /usr/lib/postgresql/<major>/bin with initdb
// (Debian/Ubuntu layout), else the directory of initdb on PATH.
func findBinDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	best, bestVer := "", -1.0
	for _, d := range dirs {
		v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(d)), 64)
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil && v > bestVer {
			best, bestVer = d, v
		}
	}
	if best != "" {
		return best, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New(installHint)
}

// serverCredential is nil when we may run PostgreSQL as ourselves, and the
// "postgres" user's identity when we are root.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and PostgreSQL refuses to run as root, but there is no 'postgres' user to run it as (%v): "+
			"create one (installing the postgresql package does), run the tests as another user, or set %s", err, EnvURL)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

// tempBase is where cluster directories go. The unix socket path must stay
// under ~100 bytes, so a long TMPDIR falls back to /tmp.
func tempBase() string {
	if d := os.TempDir(); len(d) < 60 {
		return d
	}
	return "/tmp"
}

// sweepStale deletes cluster directories left by test binaries that died
// without cleaning up, once both the binary and its postmaster are gone.
func sweepStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	for _, d := range dirs {
		owner, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // not ours, or still being created
		}
		if alive(string(owner)) {
			continue
		}
		if pm, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid")); err == nil {
			if first, _, _ := strings.Cut(string(pm), "\n"); alive(first) {
				continue
			}
		}
		os.RemoveAll(d)
	}
}

func alive(pidText string) bool {
	pid, err := strconv.Atoi(strings.TrimSpace(pidText))
	if err != nil || pid <= 0 {
		return false
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// OpenXact begins a transaction on pool that takes a transaction id and
// stays open until end is called (or the test ends): what holds back the
// changes committed after it (a run takes only those below the server's
// oldest open xid). It returns the transaction's backend pid.
func OpenXact(t testing.TB, pool *pgxpool.Pool) (pid int, end func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatalf("pgtest: begin: %v", err)
	}
	end = func() { _ = tx.Rollback(ctx) }
	t.Cleanup(end)
	var xid string
	if err := tx.QueryRow(ctx, `select pg_backend_pid(), pg_current_xact_id()::text`).Scan(&pid, &xid); err != nil {
		t.Fatalf("pgtest: take a transaction id: %v", err)
	}
	return pid, end
}

// WaitSessionsGone waits until the database has no session named app (the
// PGAPPNAME of a child process). A child killed or stopped right after it
// sent COMMIT has its transaction committed by the server after the child
// is gone: read in between, the runs table can still say no run committed
// while the similarities read a moment later are the new run's. A test
// looks once the server is done with the child.
func WaitSessionsGone(t *testing.T, pool *pgxpool.Pool, app string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := pool.QueryRow(context.Background(), `select count(*) from pg_stat_activity
			where datname = current_database() and application_name = $1`, app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions named %q still open after 30 s", n, app)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
