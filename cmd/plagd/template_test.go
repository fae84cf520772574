package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
	"github.com/plagd/plagd/store"
)

// TestCLI_Template: plagd template add registers a template from a file,
// says how many documents the next run indexes again, list shows it (text
// and JSON), the run leaves its text out, and remove unregisters it; bad
// input is refused with a reason.
func TestCLI_Template(t *testing.T) {
	url := pgtest.NewDB(t)
	pool := pgtest.Pool(t, url)
	prompt := "Describe the water mills of the valley, their owners and their fate in the twentieth century, in about five hundred words."
	answers := []string{
		"Grandfather kept bees behind the old school and sold honey at the Saturday market until the flood came.",
		"Railway timetables of the nineteenth century reveal how quickly rural towns adopted standard clock time.",
		"Glaciers carved the northern lakes, leaving moraines that farmers later cleared stone by patient stone.",
	}
	for i, kind := range []string{"essay", "essay", "thesis"} {
		pgtest.Exec(t, pool, `insert into documents (external_id, kind, text) values ($1, $2, $3)`,
			"d"+string(rune('0'+i)), kind, prompt+"\n\n"+answers[i])
	}
	if out, code := plagd(t, url, "run"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, out)
	}
	essayPairs := func() int {
		t.Helper()
		var n int
		if err := pool.QueryRow(t.Context(), `select count(*) from similarities s join documents a on a.id = s.doc_id
			join documents b on b.id = s.other_id where a.kind = 'essay' and b.kind = 'essay'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := essayPairs(); n != 2 {
		t.Fatalf("%d similarity rows between the essays before the template, want 2 (the shared prompt)", n)
	}
	file := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(file, []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := plagd(t, url, "template", "add", "--name", "Mills prompt", "--kind", "essay", file)
	if code != 0 || !strings.Contains(out, "template 1 registered for documents of kind \"essay\"; the next run indexes 2 documents again") {
		t.Fatalf("template add: exit %d: %s", code, out)
	}
	if out, code := plagd(t, url, "template", "list"); code != 0 || !strings.Contains(out, "Mills prompt") || !strings.Contains(out, "essay") {
		t.Fatalf("template list: exit %d: %s", code, out)
	}
	out, _ = plagd(t, url, "template", "list", "--json")
	var got struct{ Templates []store.Template }
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &got); err != nil || len(got.Templates) != 1 || got.Templates[0].Body != prompt {
		t.Fatalf("template list --json: %v: %s", err, out)
	}
	if out, code := plagd(t, url, "run"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, out)
	}
	if n := essayPairs(); n != 0 {
		t.Fatalf("%d similarity rows between the essays: want none, they share only the registered prompt", n)
	}
	for _, bad := range [][]string{
		{"template", "add", "--name", "", file},
		{"template", "add", "--name", "x", filepath.Join(t.TempDir(), "missing.txt")},
		{"template", "remove", "7"},
		{"template", "remove", "x"},
	} {
		if out, code := plagd(t, url, bad...); code == 0 || !strings.Contains(out, "plagd") {
			t.Errorf("plagd %s: exit %d, want a refusal: %s", strings.Join(bad, " "), code, out)
		}
	}
	if out, code := plagd(t, url, "template", "remove", "1"); code != 0 || !strings.Contains(out, "indexes 2 documents again") {
		t.Fatalf("template remove: exit %d: %s", code, out)
	}
	var logged []string
	rows, err := pool.Query(t.Context(), `select action || ' ' || target_label || ' ' || actor from audit_log where target_kind = 'template' order by id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		logged = append(logged, s)
	}
	rows.Close()
	if len(logged) != 2 || !strings.HasPrefix(logged[0], "template.registered Mills prompt cli:") || !strings.HasPrefix(logged[1], "template.removed Mills prompt cli:") {
		t.Fatalf("audit log %q: want the registration and the removal, by the CLI's user", logged)
	}
}
