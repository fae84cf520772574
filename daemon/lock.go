package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/migrations"
)

// ErrOtherMaster means another plagd master holds the master lock on this
// database. The error returned wraps it in an *OtherMasterError that names
// the holder.
var ErrOtherMaster = errors.New("another plagd master holds the lock on this database")

// OtherMasterError names the master that holds the lock, as far as PostgreSQL
// knows it. PID and Host come from the holder's application_name, so they are
// zero when the lock is held by something other than plagd (e.g. psql).
type OtherMasterError struct {
	PID       int       // process id of the holding plagd, on Host
	Host      string    // host name of the holding plagd
	Since     time.Time // when the holder's lock session started, about when it took the lock; zero if unknown
	Backend   int       // PostgreSQL backend pid of the holder's session: pg_terminate_backend(Backend) ends it
	AppName   string    // the holder session's application_name
	Client    string    // the holder session's client address, empty for a unix socket
	holderSet bool      // false when the holder could not be identified
}

func (e *OtherMasterError) Error() string {
	return fmt.Sprintf("%s (%s); stop it first, or set schedule.lock_wait: true (PLAGD_SCHEDULE_LOCK_WAIT=true) to wait for it",
		ErrOtherMaster.Error(), e.Holder())
}

// Holder describes the lock holder for a person: "pid P on host H since T".
func (e *OtherMasterError) Holder() string {
	since := "an unknown time"
	if !e.Since.IsZero() {
		since = e.Since.Local().Format(time.RFC3339)
	}
	switch {
	case !e.holderSet:
		return "holder unknown: it may have just exited, try again"
	case e.PID != 0:
		return fmt.Sprintf("pid %d on host %s since %s", e.PID, e.Host, since)
	default:
		return fmt.Sprintf("not a plagd session: backend pid %d, application_name %q, client %s, since %s",
			e.Backend, e.AppName, orLocal(e.Client), since)
	}
}

func (e *OtherMasterError) Unwrap() error { return ErrOtherMaster }

func orLocal(addr string) string {
	if addr == "" {
		return "local socket"
	}
	return addr
}

// MasterLock is the one-master-per-database lock: a session-level PostgreSQL
// advisory lock held on a connection of its own, outside the pool, so that no
// pool reset or recycling can drop it. The lock lasts exactly as long as that
// session: if plagd dies, PostgreSQL releases it; if the connection dies while
// plagd lives, Lost reports it, because another master may now take over.
type MasterLock struct {
	conn   *pgx.Conn
	pid    uint32     // the lock session's backend pid (pg_locks.pid), for the commit fence
	mu     sync.Mutex // serialises use of conn between the watcher and Release
	lost   chan struct{}
	stop   context.CancelFunc
	done   chan struct{} // closed when the watcher has exited
	closed bool
}

// Lock-wait and watch timing; variables so tests can shorten them.
var (
	lockPollMin   = 250 * time.Millisecond
	lockPollMax   = 5 * time.Second
	watchInterval = 5 * time.Second
	watchTimeout  = 10 * time.Second
)

// AcquireMaster takes the master lock. When another master holds it, it
// returns an *OtherMasterError (errors.Is ErrOtherMaster), or with wait it
// retries with backoff until the lock is free or ctx ends. The lock session's
// application_name records this process ("plagd master pid=P host=H") so that
// a refused master can say who holds the lock.
func AcquireMaster(ctx context.Context, pool *pgxpool.Pool, wait bool) (*MasterLock, error) {
	delay := lockPollMin
	for attempt := 1; ; attempt++ {
		conn, err := tryMaster(ctx, pool)
		if err != nil {
			return nil, err
		}
		if conn != nil {
			return watch(conn), nil
		}
		if !wait {
			h, err := MasterHolder(ctx, pool)
			switch {
			case err != nil:
				return nil, fmt.Errorf("%w (could not identify the holder: %v)", ErrOtherMaster, err)
			case h != nil:
				return nil, h
			case attempt < 3:
				continue // the holder let go in between: try again
			}
			return nil, &OtherMasterError{}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the master lock: %w", context.Cause(ctx))
		case <-time.After(delay):
		}
		delay = min(delay*2, lockPollMax)
	}
}

// tryMaster opens a fresh lock session and tries the lock once: the
// connection when the lock was taken, nil when someone else holds it. A fresh
// session per attempt makes its backend_start the time the lock was taken,
// which is the "since" other masters report.
func tryMaster(ctx context.Context, pool *pgxpool.Pool) (*pgx.Conn, error) {
	cfg := pool.Config().ConnConfig // a copy
	cfg.RuntimeParams["application_name"] = masterAppName()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("master lock: connect: %w", err)
	}
	var got bool
	err = conn.QueryRow(ctx, `select pg_try_advisory_lock($1, $2)`,
		int32(migrations.LockNamespace), int32(migrations.LockKeyMaster)).Scan(&got)
	if err != nil || !got {
		conn.Close(context.Background())
		if err != nil {
			return nil, fmt.Errorf("master lock: %w", err)
		}
		return nil, nil
	}
	return conn, nil
}

// masterAppName identifies this process. The pid comes first because
// PostgreSQL truncates application_name to 63 bytes, and a long host name
// should lose its tail rather than the pid.
func masterAppName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return fmt.Sprintf("plagd master pid=%d host=%s", os.Getpid(), host)
}

// MasterHolder describes the session holding the master lock, or returns nil
// when no one holds it. AcquireMaster uses it to explain a refusal; a status
// command can use it to show which process is the master.
func MasterHolder(ctx context.Context, pool *pgxpool.Pool) (*OtherMasterError, error) {
	e := &OtherMasterError{holderSet: true}
	var client *string
	var since *time.Time // NULL when the holder runs as a role we may not inspect
	err := pool.QueryRow(ctx, `
		select a.pid, coalesce(a.application_name, ''), host(a.client_addr), a.backend_start
		from pg_locks l join pg_stat_activity a on a.pid = l.pid
		where l.locktype = 'advisory' and l.granted
		  and l.database = (select oid from pg_database where datname = current_database())
		  and l.classid = $1 and l.objid = $2 and l.objsubid = 2
		limit 1`,
		uint32(migrations.LockNamespace), uint32(migrations.LockKeyMaster),
	).Scan(&e.Backend, &e.AppName, &client, &since)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("find the master lock holder: %w", err)
	}
	if client != nil {
		e.Client = *client
	}
	if since != nil {
		e.Since = *since
	}
	e.PID, e.Host = parseMasterAppName(e.AppName)
	return e, nil
}

// parseMasterAppName reads what masterAppName wrote; zeros if it is not ours.
func parseMasterAppName(s string) (pid int, host string) {
	rest, ok := strings.CutPrefix(s, "plagd master ")
	if !ok {
		return 0, ""
	}
	for _, f := range strings.Fields(rest) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "pid":
			pid, _ = strconv.Atoi(v)
		case "host":
			host = v
		}
	}
	if pid == 0 {
		return 0, ""
	}
	if host == "" {
		host = "(unknown)"
	}
	return pid, host
}

// watch starts the goroutine that pings the lock session, so a dead
// connection (server restart, network cut, pg_terminate_backend) is noticed
// within about watchInterval+watchTimeout.
func watch(conn *pgx.Conn) *MasterLock {
	ctx, cancel := context.WithCancel(context.Background())
	l := &MasterLock{conn: conn, pid: conn.PgConn().PID(), lost: make(chan struct{}), stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			l.mu.Lock()
			if l.closed {
				l.mu.Unlock()
				return
			}
			// Not derived from ctx: cancelling a query makes pgx close the
			// connection, and Release wants it open to unlock synchronously.
			pctx, pcancel := context.WithTimeout(context.Background(), watchTimeout)
			err := conn.Ping(pctx)
			pcancel()
			if err != nil {
				l.closed = true
				conn.Close(context.Background())
				l.mu.Unlock()
				close(l.lost)
				return
			}
			l.mu.Unlock()
		}
	}()
	return l
}

// ErrLockLost is why a run stops, or refuses to commit, once the master
// lock's session has died: another master may hold the lock by now.
// It matches engine.ErrAbandoned, so the run is recorded as aborted.
var ErrLockLost error = lockLost{}

type lockLost struct{}

func (lockLost) Error() string {
	return "lost the master lock (its database session died); the run is abandoned so that no two masters commit"
}
func (lockLost) Is(target error) bool { return target == engine.ErrAbandoned }

// Held checks, inside tx, that the lock session still holds the master
// lock. A run calls it in its commit transaction, so that a master whose
// lock session died (and whose watcher has not noticed yet) cannot commit:
// the fence makes "never two masters" hold for what reaches the database,
// not only for what the watcher sees.
func (l *MasterLock) Held(ctx context.Context, tx pgx.Tx) error {
	var held bool
	err := tx.QueryRow(ctx, `select exists (select 1 from pg_locks
		where locktype = 'advisory' and granted and pid = $1
		  and database = (select oid from pg_database where datname = current_database())
		  and classid = $2 and objid = $3 and objsubid = 2)`,
		int64(l.pid), uint32(migrations.LockNamespace), uint32(migrations.LockKeyMaster)).Scan(&held)
	if err != nil {
		return fmt.Errorf("check the master lock: %w", err)
	}
	if !held {
		return ErrLockLost
	}
	return nil
}

// Lost is closed when the lock session has died, after which another master
// may hold the lock: a run in progress must abort without committing. It is
// not closed by Release.
func (l *MasterLock) Lost() <-chan struct{} { return l.lost }

// Release gives the lock up. It unlocks explicitly before closing the
// session, so that the lock is free when Release returns (closing alone
// frees it only once the server has processed the disconnect). Calling it
// more than once, or after the lock was lost, is harmless.
func (l *MasterLock) Release() {
	l.stop()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.conn.Exec(ctx, `select pg_advisory_unlock($1, $2)`, int32(migrations.LockNamespace), int32(migrations.LockKeyMaster))
	l.conn.Close(ctx)
}
