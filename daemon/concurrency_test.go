package daemon

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestEngine_NoLostChangesUnderConcurrentWriters writes from several
// connections while runs happen. Writers hold their transactions open for
// random times, so they commit out of sequence order: a change log read as
// "seq > last seen" would lose some of them. After the writers stop, every
// live document must be indexed with its final text and the similarities must
// equal the reference.
func TestEngine_NoLostChangesUnderConcurrentWriters(t *testing.T) {
	seed := enginetest.Seed(t)
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	cfg := enginetest.Config(t, url, 2)
	e := engine.NewEngine(cfg, pool, enginetest.Logger(t))
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := enginetest.NewCorpus(seed + uint64(w))
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := 0; ctx.Err() == nil; i++ {
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					ext := "w" + strconv.Itoa(w) + "-" + strconv.Itoa(rng.IntN(30))
					if _, err := tx.Exec(ctx, `
						insert into documents (external_id, text) values ($1, $2)
						on conflict (external_id) do update set text = excluded.text, deleted_at = null`, ext, c.Text()); err != nil {
						return err
					}
					if rng.IntN(6) == 0 {
						if _, err := tx.Exec(ctx, `update documents set deleted_at = now() where external_id = $1`,
							"w"+strconv.Itoa(w)+"-"+strconv.Itoa(rng.IntN(30))); err != nil {
							return err
						}
					}
					time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond) // commit late, out of order
					return nil
				})
				if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
					t.Error(err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	runs := 0
	for deadline := time.Now().Add(4 * time.Second); time.Now().Before(deadline); runs++ {
		if _, err := e.Run(context.Background(), false); err != nil {
			t.Fatalf("run during writes: %v", err)
		}
	}
	stop()
	wg.Wait()
	enginetest.MustRun(t, e.Run, false)
	t.Logf("%d runs during %d write transactions", runs, writes.Load())
	if runs < 3 {
		t.Fatalf("only %d runs happened while writers wrote; the test proves nothing", runs)
	}
	var pending int
	if err := pool.QueryRow(context.Background(), `select count(*) from plagd_changes`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending != 0 {
		t.Fatalf("%d change-log entries left after the final run", pending)
	}
	// Every live document is indexed with exactly its final text.
	rows, err := pool.Query(context.Background(), `
		select d.id, d.text, t.body from documents d left join document_texts t on t.doc_id = d.id
		where d.deleted_at is null`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var text string
		var body *string
		if err := rows.Scan(&id, &text, &body); err != nil {
			t.Fatal(err)
		}
		want, _ := extract.Text([]byte(text), "", "text/plain; charset=utf-8", extract.Options{})
		if body == nil || *body != want {
			t.Errorf("document %d: indexed text is not its final text (lost change)", id)
		}
	}
	rows.Close()
	enginetest.CheckSimilarities(t, pool, cfg, "after concurrent writers")
}

// TestEngine_SecondMasterRefused: two masters on one database never both run.
func TestEngine_SecondMasterRefused(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	first, err := AcquireMaster(context.Background(), pool, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireMaster(context.Background(), pgtest.Pool(t, url), false)
	if !errors.Is(err, ErrOtherMaster) {
		t.Fatalf("second master: got %v, want ErrOtherMaster", err)
	}
	first.Release()
	second, err := AcquireMaster(context.Background(), pgtest.Pool(t, url), false)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	second.Release()
}
