package store

import (
	"context"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
)

// TestIdenticalDocuments: a live document with the same bytes is found
// (through the index of migration 0010); a deleted one, a plain text with
// those characters and a file that differs are not.
func TestIdenticalDocuments(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	file := []byte("%PDF-1.4 the same essay")
	a, err := CreateDocument(ctx, pool, DocumentInput{Filename: "a.pdf", Content: file})
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateDocument(ctx, pool, DocumentInput{Filename: "b.pdf", Content: file})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateDocument(ctx, pool, DocumentInput{Text: string(file)}); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateDocument(ctx, pool, DocumentInput{Filename: "c.pdf", Content: append([]byte{}, append(file, '!')...)}); err != nil {
		t.Fatal(err)
	}
	if err := DeleteDocument(ctx, pool, b); err != nil {
		t.Fatal(err)
	}
	got, err := IdenticalDocuments(ctx, pool, file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != a || got[0].Filename != "a.pdf" {
		t.Fatalf("identical = %+v, want only document %d", got, a)
	}
	if got, err := IdenticalDocuments(ctx, pool, []byte("nothing like it")); err != nil || len(got) != 0 {
		t.Fatalf("identical to a new file = %+v, %v; want none", got, err)
	}
	var plan string
	if err := pool.QueryRow(ctx, `explain select id from documents where sha256(content) = sha256('x'::bytea)
		and content is not null and deleted_at is null`).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	t.Logf("plan: %s", plan)
}
