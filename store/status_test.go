package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/plagd/plagd/internal/pgtest"
)

// reportFixture is a small archive in every state a report distinguishes.
type reportFixture struct {
	indexed, indexed2, indexed3, indexed4 int64 // indexed
	failed                                int64 // failed, unchanged since
	pending                               int64 // never processed
	failedPending                         int64 // failed, then changed: pending
	deleted                               int64 // soft-deleted
}

func newReportFixture(t *testing.T, pool *pgxpool.Pool) reportFixture {
	t.Helper()
	ctx := context.Background()
	doc := func(externalID, title string) int64 {
		var id int64
		if err := pool.QueryRow(ctx, `insert into documents (external_id, title, filename, text) values ($1, $2, $1, 'x') returning id`,
			externalID, title).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	f := reportFixture{
		indexed:       doc("theses/a.txt", "A"),
		indexed2:      doc("theses/b.txt", "B"),
		indexed3:      doc("theses/c.txt", "C"),
		indexed4:      doc("12345", "Numeric key"),
		failed:        doc("scan.pdf", "Scan"),
		pending:       doc("new.txt", "New"),
		failedPending: doc("fixed.txt", "Fixed"),
		deleted:       doc("gone.txt", "Gone"),
	}
	status := func(id int64, st, reason string, chunks int) {
		pgtest.Exec(t, pool, `insert into document_status (doc_id, status, error, words, chunks, run_id) values ($1, $2, nullif($3, ''), $4, $4, 1)`,
			id, st, reason, chunks)
	}
	status(f.indexed, "indexed", "", 40)
	status(f.indexed2, "indexed", "", 40)
	status(f.indexed3, "indexed", "", 100)
	status(f.indexed4, "indexed", "", 100)
	status(f.failed, "failed", "binary data, not text: PNG image", 0)
	status(f.failedPending, "failed", "the document contains no text", 0)
	status(f.deleted, "indexed", "", 10)
	pgtest.Exec(t, pool, `update documents set deleted_at = now() where id = $1`, f.deleted)

	// The inserts above logged changes; replace them with a known log:
	// two live documents and one hard-deleted id.
	pgtest.Exec(t, pool, `delete from plagd_changes`)
	pgtest.Exec(t, pool, `insert into plagd_changes (doc_id, op, at) values
		($1, 'insert', '2024-05-01 10:00:00+00'), ($2, 'update', '2024-05-01 11:00:00+00'),
		($2, 'update', '2024-05-01 12:00:00+00'), (999999, 'delete', '2024-05-01 09:30:00+00')`,
		f.pending, f.failedPending)
	return f
}

func TestLoadStatus(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	f := newReportFixture(t, pool)
	pgtest.Exec(t, pool, `insert into runs (kind, status, started_at, finished_at, docs_changed, docs_indexed, docs_deleted,
			docs_failed, docs_recomputed, postings, rows_written, error, host, pid) values
		('full', 'committed', '2024-05-01 08:00:00+00', '2024-05-01 08:01:30+00', 10, 9, 0, 1, 9, 5000, 40, null, 'h1', 11),
		('incremental', 'failed', '2024-05-01 09:00:00+00', '2024-05-01 09:00:02.5+00', 0, 0, 0, 0, 0, 0, 0, 'node 2 unreachable', 'h1', 12),
		('incremental', 'running', now() - interval '3 seconds', null, 0, 0, 0, 0, 0, 0, 0, null, 'h2', 13)`)

	st, err := LoadStatus(ctx, NewDB(pool), 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := (DocCounts{Total: 7, Indexed: 4, Failed: 1, Pending: 2, Deleted: 1}); st.Documents != want {
		t.Errorf("Documents = %+v, want %+v", st.Documents, want)
	}
	if st.Pending != 3 {
		t.Errorf("Pending = %d, want 3 distinct documents in the change log", st.Pending)
	}
	if want := time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC); st.OldestPending == nil || !st.OldestPending.Equal(want) {
		t.Errorf("OldestPending = %v, want %v", st.OldestPending, want)
	}

	if len(st.Runs) != 2 {
		t.Fatalf("%d runs, want the newest 2", len(st.Runs))
	}
	running, failed := st.Runs[0], st.Runs[1]
	if running.Status != "running" || running.Finished != nil || running.Duration < 3*time.Second || running.Duration > time.Minute {
		t.Errorf("running run %+v: want no finish and a duration of a few seconds so far", running)
	}
	if failed.Status != "failed" || failed.Error != "node 2 unreachable" || failed.Duration != 2500*time.Millisecond ||
		failed.Kind != "incremental" || failed.Host != "h1" || failed.PID != 12 || failed.Finished == nil {
		t.Errorf("failed run %+v", failed)
	}
	all, err := LoadStatus(ctx, NewDB(pool), 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	full := all.Runs[2]
	if full.Kind != "full" || full.Duration != 90*time.Second || full.DocsChanged != 10 || full.DocsIndexed != 9 ||
		full.DocsFailed != 1 || full.DocsRecomputed != 9 || full.Postings != 5000 || full.RowsWritten != 40 || full.Error != "" {
		t.Errorf("committed run %+v", full)
	}
	if len(all.Failed) != 0 {
		t.Errorf("failed limit 0 listed %d documents", len(all.Failed))
	}

	// The failed document that changed since is pending, not listed.
	if len(st.Failed) != 1 {
		t.Fatalf("Failed = %+v, want only %d", st.Failed, f.failed)
	}
	if got, want := st.Failed[0], (FailedDoc{ID: f.failed, ExternalID: "scan.pdf", Filename: "scan.pdf", Error: "binary data, not text: PNG image"}); got != want {
		t.Errorf("Failed[0] = %+v, want %+v", got, want)
	}
}

func TestLoadStatusEmpty(t *testing.T) {
	st, err := LoadStatus(context.Background(), NewDB(pgtest.Pool(t, pgtest.NewDB(t))), 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs == nil || st.Failed == nil || len(st.Runs)+len(st.Failed) != 0 || st.Pending != 0 ||
		st.OldestPending != nil || st.Documents != (DocCounts{}) {
		// Non-nil empty slices encode as [] in JSON, which API clients prefer to null.
		t.Errorf("empty database: %+v", st)
	}
}

// TestLoadStatus_IndexQueued: the documents whose similarity index waits
// (an author edit queues the document and the lists naming it) are
// counted, so that an operator sees work left after a run.
func TestLoadStatus_IndexQueued(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	var a, b int64
	if err := pool.QueryRow(ctx, `insert into documents (text) values ('one') returning id`).Scan(&a); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `insert into documents (text) values ('two') returning id`).Scan(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `insert into similarities (doc_id, other_id, shared_chunks, similarity) values ($1, $2, 3, 0.5)`, b, a); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `update documents set author = 'Jana Novakova' where id = $1`, a); err != nil {
		t.Fatal(err)
	}
	st, err := LoadStatus(ctx, NewDB(pool), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.IndexQueued != 2 {
		t.Fatalf("an author edit of a document named by one list queued %d indexes, want 2 (the document and the list)", st.IndexQueued)
	}
}

func TestResolveDoc(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	f := newReportFixture(t, pool)
	for ref, want := range map[string]int64{
		fmt.Sprint(f.indexed2): f.indexed2,
		"theses/a.txt":         f.indexed,
		"12345":                f.indexed4, // numeric, but no such id: an external_id
		"gone.txt":             f.deleted,
	} {
		if got, err := ResolveDoc(ctx, pool, ref); err != nil || got != want {
			t.Errorf("ResolveDoc(%q) = %d, %v; want %d", ref, got, err, want)
		}
	}
	_, err := ResolveDoc(ctx, pool, "nope.txt")
	if err == nil || err.Error() != `no document with id or external_id "nope.txt"` {
		t.Errorf("unknown reference: %v", err)
	}
}

func TestSimilar(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	f := newReportFixture(t, pool)
	pgtest.Exec(t, pool, `insert into similarities (doc_id, other_id, shared_chunks, similarity) values
		($1, $2, 10, 0.25), ($1, $3, 10, 0.25), ($1, $4, 30, 0.75),
		($2, $1, 10, 0.25), ($4, $2, 5, 0.05)`,
		f.indexed, f.indexed3, f.indexed2, f.indexed4)

	rows, err := Similar(ctx, pool, f.indexed)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		rev := "-"
		if r.Reverse != nil {
			rev = fmt.Sprint(*r.Reverse)
		}
		got = append(got, fmt.Sprintf("%d %s %s %d %v %s", r.OtherID, r.ExternalID, r.Title, r.Shared, r.Similarity, rev))
	}
	// Most shared first; the tie at 10 by other_id; reverse only where stored.
	want := []string{
		fmt.Sprintf("%d 12345 Numeric key 30 0.75 -", f.indexed4),
		fmt.Sprintf("%d theses/b.txt B 10 0.25 -", f.indexed2),
		fmt.Sprintf("%d theses/c.txt C 10 0.25 0.25", f.indexed3),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Similar:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if rows, err := Similar(ctx, pool, f.pending); err != nil || rows == nil || len(rows) != 0 {
		t.Errorf("document without similarities: %v, %v; want an empty list", rows, err)
	}

	for id, want := range map[int64]string{
		f.indexed:       "indexed",
		f.failed:        "failed",
		f.pending:       "pending",
		f.failedPending: "pending",
		f.deleted:       "deleted",
	} {
		info, err := LoadDocInfo(ctx, pool, id)
		if err != nil || info.Status != want {
			t.Errorf("LoadDocInfo(%d) = %+v, %v; want status %s", id, info, err, want)
		}
	}
	info, _ := LoadDocInfo(ctx, pool, f.indexed3)
	if info.ExternalID != "theses/c.txt" || info.Title != "C" || info.Chunks != 100 || info.Words != 100 {
		t.Errorf("LoadDocInfo = %+v", info)
	}
	if _, err := LoadDocInfo(ctx, pool, -1); err == nil {
		t.Error("LoadDocInfo of a missing id: no error")
	}
}

// TestLostEntriesAreNotPending: a document whose similarity or related
// list lost a member to a hard delete stays indexed everywhere (status
// counts, failed list, document status, report header), while the delete
// itself is pending (changedEntry).
func TestLostEntriesAreNotPending(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	f := newReportFixture(t, pool)
	pgtest.Exec(t, pool, `insert into plagd_changes (doc_id, op) values ($1, 'lost'), ($1, 'lost_related'), ($2, 'lost')`,
		f.indexed, f.failed)
	st, err := LoadStatus(ctx, NewDB(pool), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := (DocCounts{Total: 7, Indexed: 4, Failed: 1, Pending: 2, Deleted: 1}); st.Documents != want {
		t.Errorf("Documents = %+v, want %+v", st.Documents, want)
	}
	if n, err := PendingDocuments(ctx, pool); err != nil || n != 3 || st.Pending != 3 {
		t.Errorf("PendingDocuments = %d, %v, Status.Pending = %d; want 3 (lost entries do not count)", n, err, st.Pending)
	}
	if len(st.Failed) != 1 || st.Failed[0].ID != f.failed {
		t.Errorf("Failed = %+v, want %d, whose list only lost an entry", st.Failed, f.failed)
	}
	if info, err := LoadDocInfo(ctx, pool, f.indexed); err != nil || info.Status != "indexed" {
		t.Errorf("LoadDocInfo = %+v, %v; want indexed", info, err)
	}
	if d, err := GetDocument(ctx, pool, f.indexed); err != nil || d.Status != "indexed" {
		t.Errorf("GetDocument = %+v, %v; want indexed", d, err)
	}
}

// TestLoadStatus_HeldBack: a transaction left open (it took an xid)
// holds back the changes committed after it began; status names it and
// counts the documents that wait, and says nothing once it ends.
func TestLoadStatus_HeldBack(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	db := NewDB(pool)
	pgtest.Exec(t, pool, `insert into documents (external_id, text) values ('before', 'a text')`)
	pid, end := pgtest.OpenXact(t, pool)
	pgtest.Exec(t, pool, `insert into documents (external_id, text) values ('after-1', 'a text'), ('after-2', 'a text')`)
	st, err := LoadStatus(ctx, db, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pending != 3 || st.HeldBack == nil || st.HeldBack.Documents != 2 || st.HeldBack.PID != pid || st.HeldBack.Since.IsZero() {
		t.Fatalf("pending %d, held back %+v: want 3 pending, 2 of them held back by pid %d", st.Pending, st.HeldBack, pid)
	}
	end()
	if st, err = LoadStatus(ctx, db, 1, 1); err != nil || st.HeldBack != nil {
		t.Fatalf("after the transaction ended: held back %+v, %v; want none", st.HeldBack, err)
	}
}
