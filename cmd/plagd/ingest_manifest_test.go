package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
)

// TestCLI_IngestManifest: `plagd ingest --manifest` stores each row's file
// (relative to the manifest) with its details, audited as the CLI's user;
// the same manifest again skips the byte-identical files with a message,
// --duplicates=replace updates the existing documents instead, a folder
// holding a stored file under another path lists it instead of storing a
// copy, and a manifest with an error imports nothing and names the row and
// column.
func TestCLI_IngestManifest(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "2024"), 0o755)
	os.WriteFile(filepath.Join(dir, "2024", "water.txt"), []byte("water flows downhill and carries the sediment of the valley to the sea"), 0o644)
	os.WriteFile(filepath.Join(dir, "fire.txt"), []byte("fire needs fuel, heat and oxygen, and the triangle breaks when one is taken away"), 0o644)
	manifest := filepath.Join(dir, "manifest.csv")
	os.WriteFile(manifest, []byte("file,external_id,title,author,kind,year,restricted\n"+
		"2024/water.txt,T-1,\"Water, and why it flows\",Jana Nováková,thesis,2024,yes\n"+
		"fire.txt,,Fire,Petr Svoboda,essay,2023,\n"), 0o644)

	out, code := plagd(t, url, "ingest", "--manifest", manifest)
	if code != 0 || !strings.Contains(out, "row 2 (2024/water.txt): stored as document") || !strings.Contains(out, "manifest: 2 stored, 0 replaced") {
		t.Fatalf("ingest --manifest: exit %d: %s", code, out)
	}
	type doc struct {
		title, author, kind, extID string
		year                       int
		restricted                 bool
	}
	read := func(file string) doc {
		t.Helper()
		var d doc
		if err := pool.QueryRow(context.Background(), `select coalesce(title,''), coalesce(author,''), coalesce(kind,''), coalesce(external_id,''),
			coalesce(year,0), restricted from documents where filename = $1 and deleted_at is null`, file).
			Scan(&d.title, &d.author, &d.kind, &d.extID, &d.year, &d.restricted); err != nil {
			t.Fatal(err)
		}
		return d
	}
	if got, want := read("water.txt"), (doc{"Water, and why it flows", "Jana Nováková", "thesis", "T-1", 2024, true}); got != want {
		t.Errorf("water.txt stored as %+v, want %+v", got, want)
	}
	if got, want := read("fire.txt"), (doc{"Fire", "Petr Svoboda", "essay", "", 2023, false}); got != want {
		t.Errorf("fire.txt stored as %+v, want %+v", got, want)
	}
	var audited int
	if err := pool.QueryRow(context.Background(), `select count(*) from audit_log where actor like 'cli:%'`).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if audited == 0 {
		t.Errorf("the import left no audit rows of the CLI's user")
	}

	// the same files again: skipped, with what to do
	out, code = plagd(t, url, "ingest", "--manifest", manifest)
	if code != 0 || !strings.Contains(out, "skipped, byte for byte the file of document") || !strings.Contains(out, "--duplicates=replace") ||
		!strings.Contains(out, "0 stored, 0 replaced, 2 skipped") {
		t.Fatalf("second import: exit %d: %s", code, out)
	}
	// replace: the existing documents take the rows' details
	os.WriteFile(manifest, []byte("file,title,year\nfire.txt,Fire (revised title),2022\n"), 0o644)
	out, code = plagd(t, url, "ingest", "--manifest", manifest, "--duplicates=replace")
	if code != 0 || !strings.Contains(out, "replaced the file of the identical document") {
		t.Fatalf("replace: exit %d: %s", code, out)
	}
	if got := read("fire.txt"); got.title != "Fire (revised title)" || got.year != 2022 || got.author != "Petr Svoboda" {
		t.Errorf("after replace: %+v, want the new title and year, the author kept", got)
	}
	// the folder the manifest took water.txt from: keyed by its path, it
	// would be a second copy; it is listed instead
	out, code = plagd(t, url, "ingest", filepath.Join(dir, "2024"))
	if code != 0 || !strings.Contains(out, "identical to stored documents 1") || !strings.Contains(out, "(T-1)") {
		t.Fatalf("folder ingest of a file stored by the manifest: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "ingest", "--duplicates=replace", dir); code == 0 || !strings.Contains(out, "replace needs --manifest") {
		t.Errorf("--duplicates=replace without a manifest: exit %d: %s", code, out)
	}
	var n int
	pool.QueryRow(context.Background(), `select count(*) from documents`).Scan(&n)
	if n != 2 {
		t.Errorf("%d documents, want 2 (nothing stored twice)", n)
	}

	// a bad row or a missing file: nothing imported, the row and column named
	os.WriteFile(filepath.Join(dir, "earth.txt"), []byte("earth holds the roots of the trees and the water of the rain"), 0o644)
	os.WriteFile(manifest, []byte("file,year\nearth.txt,2020\nfire.txt,twenty\n"), 0o644)
	out, code = plagd(t, url, "ingest", "--manifest", manifest)
	if code == 0 || !strings.Contains(out, `manifest row 3, column year: "twenty" is not a year`) || !strings.Contains(out, "nothing was imported") {
		t.Fatalf("bad manifest: exit %d: %s", code, out)
	}
	os.WriteFile(manifest, []byte("file\nearth.txt\nair.txt\n"), 0o644)
	out, code = plagd(t, url, "ingest", "--manifest", manifest)
	if code == 0 || !strings.Contains(out, "manifest row 3, column file: no file") {
		t.Fatalf("missing file: exit %d: %s", code, out)
	}
	pool.QueryRow(context.Background(), `select count(*) from documents`).Scan(&n)
	if n != 2 {
		t.Errorf("%d documents after refused manifests, want 2", n)
	}
	if out, code := plagd(t, url, "ingest", "--manifest", manifest, dir); code == 0 || !strings.Contains(out, "takes no other paths") {
		t.Errorf("--manifest with paths: exit %d: %s", code, out)
	}
}
