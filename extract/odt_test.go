package extract

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
	`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
	`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
	`xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ` +
	`xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" ` +
	`xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
	`xmlns:dc="http://purl.org/dc/elements/1.1/"`

// odtOf builds an ODT whose office:text holds body, plus extra parts.
func odtOf(t testing.TB, body string, parts ...string) []byte {
	t.Helper()
	entries := []string{
		"mimetype", "application/vnd.oasis.opendocument.text",
		"content.xml", odtContent(body),
		"styles.xml", `<office:document-styles ` + odfNS + `><office:master-styles><style:master-page>` +
			`<style:header><text:p>RUNNING HEADER</text:p></style:header></style:master-page></office:master-styles></office:document-styles>`,
	}
	return zipDeflated(t, append(entries, parts...)...)
}

func odtContent(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + `>` +
		`<office:automatic-styles><style:style style:name="P1"><text:p>NOT TEXT</text:p></style:style></office:automatic-styles>` +
		`<office:body><office:text>` + body + `</office:text></office:body></office:document-content>`
}

func TestODT_Rules(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"paragraphs, headings, spans", `<text:h text:outline-level="1">Title</text:h><text:p>One <text:span>spanned</text:span> word.</text:p>`,
			"Title\nOne spanned word."},
		{"whitespace collapses", "<text:p>\n   a \n\t  b   </text:p>", "a b"},
		{"spaces, tabs, line breaks", `<text:p>a<text:s/>b<text:s text:c="3"/>c<text:tab/>d<text:line-break/>e</text:p>`,
			"a b   c\td\ne"},
		{"absurd space count capped", `<text:p>a<text:s text:c="2000000000"/>b</text:p>`, "a" + strings.Repeat(" ", 100) + "b"},
		{"table", `<table:table><table:table-column/><table:table-header-rows><table:table-row><table:table-cell><text:p>H1</text:p></table:table-cell>` +
			`<table:table-cell><text:p>H2</text:p></table:table-cell></table:table-row></table:table-header-rows>` +
			`<table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>wide</text:p><text:p>cell</text:p></table:table-cell>` +
			`<table:covered-table-cell><text:p>COVERED</text:p></table:covered-table-cell></table:table-row></table:table><text:p>After</text:p>`,
			"H1\tH2\nwide\ncell\nAfter"},
		{"lists", `<text:list><text:list-item><text:number>1.</text:number><text:p>first</text:p></text:list-item>` +
			`<text:list-item><text:p>second</text:p><text:list><text:list-item><text:p>nested</text:p></text:list-item></text:list></text:list-item></text:list>`,
			"first\nsecond\nnested"},
		{"notes after body", `<text:p>Sentence<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation>` +
			`<text:note-body><text:p>The note.</text:p></text:note-body></text:note> goes on.</text:p><text:p>Next.</text:p>`,
			"Sentence goes on.\nNext.\nThe note."},
		{"tracked changes", `<text:tracked-changes><text:changed-region text:id="c1"><text:deletion><office:change-info><dc:creator>x</dc:creator></office:change-info>` +
			`<text:p>DELETED</text:p></text:deletion></text:changed-region></text:tracked-changes>` +
			`<text:p>Kept <text:change text:change-id="c1"/><text:change-start text:change-id="c2"/>inserted<text:change-end text:change-id="c2"/> text.</text:p>`,
			"Kept inserted text."},
		{"comments dropped", `<text:p>Word<office:annotation><dc:creator>x</dc:creator><text:p>COMMENT</text:p></office:annotation> after.</text:p>`,
			"Word after."},
		{"frames and object titles", `<text:p>Host <draw:frame><draw:text-box><text:p>boxed</text:p></draw:text-box></draw:frame></text:p>` +
			`<text:p><draw:frame><draw:image/><svg:title>ALT</svg:title><svg:desc>DESC</svg:desc></draw:frame>caption</text:p>`,
			"Host\nboxed\ncaption"},
		{"index template dropped, body kept", `<text:table-of-content><text:table-of-content-source><text:index-title-template>TEMPLATE</text:index-title-template>` +
			`</text:table-of-content-source><text:index-body><text:p>Chapter<text:tab/>3</text:p></text:index-body></text:table-of-content>`,
			"Chapter\t3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseWith(t, parseODT, odtOf(t, c.body)); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestODT_Flat(t *testing.T) {
	fodt := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<office:document ` + odfNS + ` office:mimetype="application/vnd.oasis.opendocument.text">` +
		`<office:meta><dc:title>META</dc:title></office:meta>` +
		`<office:master-styles><style:master-page><style:footer><text:p>FOOTER</text:p></style:footer></style:master-page></office:master-styles>` +
		`<office:body><office:text><text:p>Flat <text:span>document</text:span>.</text:p></office:text></office:body></office:document>`
	if got, want := parseWith(t, parseODT, []byte(fodt)), "Flat document."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestODT_Errors(t *testing.T) {
	encrypted := odtOf(t, "<text:p>x</text:p>", "META-INF/manifest.xml",
		`<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml">`+
			`<manifest:encryption-data manifest:checksum-type="SHA1/1K"/></manifest:file-entry></manifest:manifest>`)
	cases := []struct {
		name    string
		content []byte
		kind    Kind
		reason  string
	}{
		{"no content", zipOf(t, "mimetype", "application/vnd.oasis.opendocument.text"), ErrCorrupt, "the document content (content.xml) is missing"},
		{"malformed", zipOf(t, "content.xml", odtContent("<text:p>x</text:h>")), ErrCorrupt, "content.xml is not well-formed XML"},
		{"encrypted", encrypted, ErrEncrypted, "password-protected"},
		{"flat malformed", []byte(`<?xml version="1.0"?><office:document ` + odfNS + `><office:body><text:p>`), ErrCorrupt, "the flat ODT document is not well-formed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, err := parseODT(c.content, Options{})
			if err == nil {
				t.Fatalf("no error, text %q", text)
			}
			wantErrorKind(t, err, c.kind, c.reason)
		})
	}
}

func TestODT_Fixtures(t *testing.T) { testFixtures(t, parseODT, "*.odt") }

func TestODT_ThroughText(t *testing.T) {
	got, err := Text(odtOf(t, "<text:p>Via Text.</text:p>"), "a.odt", "", Options{})
	if err != nil || got != "Via Text." {
		t.Fatalf("got %q, %v", got, err)
	}
}

func FuzzODT(f *testing.F) {
	f.Add(odtOf(f, `<text:p>a<text:s text:c="2"/>b<text:tab/><text:note><text:note-body><text:p>n</text:p></text:note-body></text:note></text:p>`+
		`<table:table><table:table-row><table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></table:table>`))
	f.Add([]byte(`<?xml version="1.0"?><office:document ` + odfNS + `><office:body><office:text><text:p>flat</text:p></office:text></office:body></office:document>`))
	// A real file's text parts, without the thumbnail and styles that make
	// it too big to mutate and minimise quickly.
	if files, _ := filepath.Glob("testdata/*.odt"); len(files) > 0 {
		if b, err := os.ReadFile(files[0]); err == nil {
			if zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b))); err == nil {
				var parts []string
				for _, name := range []string{"mimetype", "content.xml"} {
					if rc, err := zr.Open(name); err == nil {
						data, _ := io.ReadAll(rc)
						parts = append(parts, name, string(data))
					}
				}
				f.Add(zipDeflated(f, parts...))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// text:s expands a few bytes to 100 spaces.
		fuzzParser(t, parseODT, data, "f.odt", 50*max(len(data), int(fuzzOptions.MaxUnzipped)))
	})
}

// TestODT_TextFamily: documents of LibreOffice Writer's kin (Writer/Web,
// templates, master documents) store the same office:text body under
// another "mimetype" and are read as text; other OpenDocument files
// (spreadsheets) are still refused by name.
func TestODT_TextFamily(t *testing.T) {
	body := `<text:h>Introduction</text:h><text:p>Young actors learn their lines early.</text:p>`
	for _, mt := range []string{"text-web", "text-template", "text-master"} {
		doc := zipDeflated(t, "mimetype", "application/vnd.oasis.opendocument."+mt, "content.xml", odtContent(body))
		for _, name := range []string{"", "essay.oth"} {
			got, err := Text(doc, name, "", Options{})
			if err != nil {
				t.Fatalf("%s (%q): %v", mt, name, err)
			}
			if !strings.Contains(got, "Introduction") || !strings.Contains(got, "Young actors learn their lines early.") {
				t.Fatalf("%s: text %q", mt, got)
			}
		}
	}
	sheet := zipDeflated(t, "mimetype", "application/vnd.oasis.opendocument.spreadsheet", "content.xml", odtContent(body))
	if _, err := Text(sheet, "", "", Options{}); err == nil || !strings.Contains(err.Error(), "not text (spreadsheet)") {
		t.Fatalf("spreadsheet: %v", err)
	}
	if got := ContentType("essay.oth"); got != "application/vnd.oasis.opendocument.text-web" {
		t.Fatalf("ContentType(essay.oth) = %q", got)
	}
}
