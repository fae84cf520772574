package ingest

import (
	"errors"
	"strings"
	"testing"

	"github.com/plagd/plagd/archive"
)

func TestParseManifest(t *testing.T) {
	csv := "\ufefffile,External ID,title,author,kind,year,restricted\n" +
		"a.pdf,T-1,\"Water, and why\",Jana Nováková,thesis,2024,yes\n" +
		"\n" +
		"b.docx,,,,essay,,\n" +
		"\"c \"\"quoted\"\".txt\",T-3,C,,,,0\n"
	rows, err := ParseManifest(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	want := []ManifestRow{
		{Row: 2, File: "a.pdf", Header: archive.Header{ExternalID: "T-1", Title: "Water, and why", Author: "Jana Nováková", Kind: "thesis", Year: 2024, Restricted: true}},
		{Row: 4, File: "b.docx", Header: archive.Header{Kind: "essay"}},
		{Row: 5, File: `c "quoted".txt`, Header: archive.Header{ExternalID: "T-3", Title: "C"}},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %+v", rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
}

// TestParseManifest_Errors: every problem names its row and column, and a
// manifest with any problem yields no rows.
func TestParseManifest_Errors(t *testing.T) {
	for _, c := range []struct{ name, csv, want string }{
		{"no header", "a.pdf,T-1\n", `row 1, column a.pdf: not a manifest column`},
		{"no file column", "title,year\nA,2020\n", `row 1: the header has no column "file"`},
		{"bad year", "file,year\na.pdf,2020\nb.pdf,twenty\n", `row 3, column year: "twenty" is not a year`},
		{"bad flag", "file,restricted\na.pdf,maybe\n", `row 2, column restricted: "maybe" is not true or false`},
		{"empty file", "file,title\n,A\n", `row 2, column file: empty`},
		{"short row", "file,title,year\na.pdf,A\n", `row 2: has 2 fields, the header names 3 columns`},
		{"twice", "file\na.pdf\nb.pdf\na.pdf\n", `row 4, column file: "a.pdf" is listed twice (also in row 2)`},
		{"same id", "file,external_id\na.pdf,X\nb.pdf,X\n", `row 3, column external_id: "X" is given twice (also in row 2)`},
		{"quote", "file,title\na.pdf,\"A\nb.pdf,B\"x\n", `row 2: a quote`},
		{"latin-1", "file,title\na.pdf,Nov\xe1k\n", `row 2: not UTF-8`},
		{"empty", "", `the manifest is empty`},
		{"header only", "file,title\n", `names no file`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, err := ParseManifest(strings.NewReader(c.csv))
			var me ManifestErrors
			if !errors.As(err, &me) || rows != nil {
				t.Fatalf("rows %+v, err %v; want ManifestErrors", rows, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}
