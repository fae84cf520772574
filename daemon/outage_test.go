package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/archive"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// shortOutageTiming makes the lock watcher, the health monitor and the
// re-locking quick, for the length of a test.
func shortOutageTiming(t *testing.T) {
	wi, wt, hi, rmin, rmax, lmax := watchInterval, watchTimeout, healthInterval, relockMin, relockMax, listenMax
	watchInterval, watchTimeout, healthInterval = 200*time.Millisecond, time.Second, 100*time.Millisecond
	relockMin, relockMax, listenMax = 100*time.Millisecond, 500*time.Millisecond, 500*time.Millisecond
	t.Cleanup(func() {
		watchInterval, watchTimeout, healthInterval, relockMin, relockMax, listenMax = wi, wt, hi, rmin, rmax, lmax
	})
}

// TestEngine_NoCommitWithoutTheLock: a run whose master lock session died
// before it commits is refused at commit (the fence), even though the lock
// watcher has not noticed yet: another master may hold the lock by then.
func TestEngine_NoCommitWithoutTheLock(t *testing.T) {
	pool, cfg, c, e := committedArchive(t, 8, 2)
	before := enginetest.Stored(t, pool)
	gen, _ := store.LastCommittedRun(context.Background(), pool)
	pgtest.Exec(t, pool, `insert into documents (external_id, text) values ('late', $1)`, c.Text())

	lock, err := AcquireMaster(context.Background(), pool, false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	e.SetFence(lock)
	// The session dies (as in a server restart or a network cut); the
	// watcher pings only every few seconds.
	// pg_terminate_backend(pid, timeout) waits until the session is gone
	// (on a loaded machine a run could otherwise commit before it exits).
	pgtest.Exec(t, pool, `select pg_terminate_backend($1, 10000)`, int64(lock.pid))
	if _, err := e.Run(context.Background(), false); !errors.Is(err, ErrLockLost) {
		t.Fatalf("run after the lock session died: %v, want ErrLockLost", err)
	}
	if after, _ := store.LastCommittedRun(context.Background(), pool); after != gen {
		t.Fatalf("run %d committed without the master lock", after)
	}
	if d := enginetest.DiffRows(enginetest.Stored(t, pool), before); d != "" {
		t.Fatalf("similarities changed by a run without the lock:\n%s", d)
	}
	lock2, err := AcquireMaster(context.Background(), pool, false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock2.Release()
	e.SetFence(lock2)
	enginetest.MustRun(t, e.Run, false)
	enginetest.CheckSimilarities(t, pool, cfg, "after the lock was retaken")
}

// TestDaemon_SurvivesDatabaseOutage stops PostgreSQL (immediate shutdown,
// as `pg_ctl stop -m immediate`) twice, once while documents are being
// uploaded and once in the middle of a run, and starts it again. The
// daemon must stay up: /healthz answers throughout, /readyz fails with the
// reason during the outage, the master lock is retaken afterwards, the run
// that was cut commits nothing, and the next run indexes every document
// whose upload was acknowledged, equal to the reference.
func TestDaemon_SurvivesDatabaseOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("stops and starts PostgreSQL; skipped in -short")
	}
	shortOutageTiming(t)
	seed := enginetest.Seed(t)
	pc := pgtest.NewCluster(t)
	pool := pgtest.Pool(t, pc.URL)
	cfg := enginetest.Config(t, pc.URL, 2)
	cfg.HTTP.Listen = freeAddr(t)
	cfg.Schedule.Cron = ""
	cfg.Schedule.Debounce = 100 * time.Millisecond
	cfg.Schedule.Poll = time.Second
	c := enginetest.NewCorpus(seed)
	for i := range 40 {
		pgtest.Exec(t, pool, `insert into documents (external_id, text) values ($1, $2)`, fmt.Sprint("seed-", i), c.Text())
	}

	d := NewDaemon(cfg, pool, enginetest.Logger(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("Serve did not stop")
		}
	}()
	base := "http://" + cfg.HTTP.Listen
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			select {
			case err := <-done:
				t.Fatalf("Serve returned while waiting for %s: %v", what, err)
			default:
			}
			if cond() {
				return
			}
		}
		t.Fatalf("timed out after %s waiting for %s", limit, what)
	}
	committed := func() int64 {
		g, _ := store.LastCommittedRun(context.Background(), pool)
		return g
	}
	ready := func() bool { code, _ := get("/readyz"); return code == http.StatusOK }
	waitFor("the first run", 60*time.Second, func() bool { return committed() > 0 && ready() })

	// Uploads go on through both outages; only acknowledged ones count.
	up := &uploader{pool: pool, c: enginetest.NewCorpus(seed + 1)}
	stopUploads := up.start()

	var downAt time.Time // when the last outage had taken the server down
	outage := func(when string, during func()) {
		t.Helper()
		during()
		pc.Stop()
		downAt = time.Now()
		waitFor(when+": /readyz failing with the reason", 20*time.Second, func() bool {
			code, body := get("/readyz")
			return code == http.StatusServiceUnavailable && strings.Contains(body, "database unreachable")
		})
		if reason, _, down := d.Health().DatabaseDown(); !down || reason == "" {
			t.Fatalf("%s: health says the database is up", when)
		}
		for range 5 {
			if code, body := get("/healthz"); code != http.StatusOK {
				t.Fatalf("%s: /healthz answered %d %q during the outage", when, code, body)
			}
			time.Sleep(100 * time.Millisecond)
		}
		pc.Start()
		waitFor(when+": ready again (lock retaken)", 60*time.Second, ready)
	}

	time.Sleep(300 * time.Millisecond)
	outage("during uploads", func() {})

	// A run in progress: give it work, and stop the server once it runs.
	var cutRun int64
	outage("during a run", func() {
		for i := range 150 {
			pgtest.Exec(t, pool, `insert into documents (external_id, text) values ($1, $2)`, fmt.Sprint("bulk-", i), c.Text())
		}
		waitFor("a run in progress", 30*time.Second, func() bool {
			pool.QueryRow(context.Background(), `select coalesce(max(id), 0) from runs where status = 'running'`).Scan(&cutRun)
			return cutRun != 0
		})
	})
	acked := stopUploads()
	if len(acked) == 0 {
		t.Fatal("no upload was acknowledged")
	}

	// Everything acknowledged gets indexed by the runs that follow.
	waitFor("every change consumed by a committed run", 120*time.Second, func() bool {
		var pending bool
		pool.QueryRow(context.Background(), `select exists (select 1 from plagd_changes)`).Scan(&pending)
		return !pending && !d.Running()
	})
	var missing []string
	for _, ext := range acked {
		var status *string
		err := pool.QueryRow(context.Background(), `select s.status from documents d
			left join document_status s on s.doc_id = d.id where d.external_id = $1`, ext).Scan(&status)
		if err != nil || status == nil || *status != "indexed" {
			missing = append(missing, fmt.Sprintf("%s (%v, %v)", ext, err, status))
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged uploads not indexed: %v", len(missing), len(acked), missing)
	}
	{
		// A run that finished its commit before the server was down was
		// not cut (it was seen running just before the stop began); one
		// marked committed afterwards would have committed a cut run.
		var st string
		var finished *time.Time
		pool.QueryRow(context.Background(), `select status, finished_at from runs where id = $1`, cutRun).Scan(&st, &finished)
		switch {
		case st == "committed" && finished != nil && finished.Before(downAt):
			t.Logf("run %d committed at %s, before the outage took the server down (%s): it was not cut",
				cutRun, finished.Format(time.StampMicro), downAt.Format(time.StampMicro))
		case st == "committed":
			t.Fatalf("run %d, cut by the outage, committed (finished %v, server down at %s)", cutRun, finished, downAt.Format(time.StampMicro))
		}
	}
	var running int
	pool.QueryRow(context.Background(), `select count(*) from runs where status = 'running'`).Scan(&running)
	if running != 0 {
		t.Fatalf("%d runs still marked running", running)
	}
	enginetest.CheckSimilarities(t, pool, cfg, "after the outages")
	t.Logf("%d uploads acknowledged, %d refused during the outages; run %d was cut", len(acked), up.refused, cutRun)
}

// uploader stores documents one after another, as uploads do, and keeps
// the external ids of those whose insert was acknowledged.
type uploader struct {
	pool    *pgxpool.Pool
	c       *enginetest.Corpus
	mu      sync.Mutex
	acked   []string
	refused int
}

func (u *uploader) start() (stop func() []string) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			ext := fmt.Sprint("upload-", i)
			cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := store.CreateDocument(cctx, u.pool, store.DocumentInput{Header: archive.Header{ExternalID: ext}, Text: u.c.Text()})
			ccancel()
			u.mu.Lock()
			if err == nil {
				u.acked = append(u.acked, ext)
			} else {
				u.refused++
			}
			u.mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return func() []string {
		cancel()
		<-done
		u.mu.Lock()
		defer u.mu.Unlock()
		return u.acked
	}
}

// freeAddr is a loopback address with a port free at the time of the call.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// committedArchive is a new database of docs generated documents after one
// committed full run of an engine on nodes nodes.
func committedArchive(t *testing.T, docs, nodes int) (*pgxpool.Pool, config.Config, *enginetest.Corpus, *engine.Engine) {
	t.Helper()
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, nodes)
	c := enginetest.NewCorpus(enginetest.Seed(t))
	for i := range docs {
		pgtest.Exec(t, pool, `insert into documents (external_id, text) values ($1, $2)`, fmt.Sprint("d", i), c.Text())
	}
	e := engine.NewEngine(cfg, pool, enginetest.Logger(t))
	enginetest.MustRun(t, e.Run, true)
	return pool, cfg, c, e
}
