package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/internal/enginetest"
	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// TestFiles_Identical: a file whose bytes a live document under another
// external id already has, or a file earlier in the same import, is listed
// and not stored, unless Duplicates is new; its own document (the same
// external id) is simply unchanged; replace is for manifests only.
func TestFiles_Identical(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t, pgtest.NewDB(t))
	db := store.NewDB(pool)
	log := zerolog.New(zerolog.NewTestWriter(t))
	dir := t.TempDir()
	enginetest.PutFile(t, filepath.Join(dir, "2023", "essay.txt"), "the same essay, handed in twice")
	enginetest.PutFile(t, filepath.Join(dir, "2023", "other.txt"), "another essay altogether")
	enginetest.PutFile(t, filepath.Join(dir, "copies", "essay-copy.txt"), "the same essay, handed in twice")

	sum, err := Files(ctx, db, Options{Roots: []string{filepath.Join(dir, "2023"), filepath.Join(dir, "copies")}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 2 || len(sum.Identical) != 1 || sum.Identical[0].Earlier == "" {
		t.Fatalf("first import: %+v, want 2 added and the copy skipped as the same as a file earlier in the import", sum)
	}
	sum, err = Files(ctx, db, Options{Roots: []string{filepath.Join(dir, "copies"), filepath.Join(dir, "2023")}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unchanged != 2 || len(sum.Identical) != 1 || len(sum.Identical[0].Existing) != 1 || sum.Identical[0].Existing[0].ExternalID != "2023/essay.txt" {
		t.Fatalf("second import: %+v, want the stored files unchanged and the copy skipped as document 2023/essay.txt", sum)
	}
	sum, err = Files(ctx, db, Options{Roots: []string{filepath.Join(dir, "copies")}, Duplicates: DuplicatesNew}, log)
	if err != nil || sum.Added != 1 || len(sum.Identical) != 0 {
		t.Fatalf("with new: %+v, %v; want the copy stored", sum, err)
	}
	if _, err := Files(ctx, db, Options{Roots: []string{dir}, Duplicates: DuplicatesReplace}, log); err == nil {
		t.Fatal("replace without a manifest: no error")
	}
}
