package extract

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// zipDeflated builds a zip of name, content pairs, compressed as office
// suites write them.
func zipDeflated(t testing.TB, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(entries[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
	`xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// docxOf builds a DOCX whose body is body (WordprocessingML inside
// w:body), plus any extra parts as name, content pairs.
func docxOf(t testing.TB, body string, parts ...string) []byte {
	t.Helper()
	entries := []string{
		"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
			`<w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`,
	}
	return zipDeflated(t, append(entries, parts...)...)
}

// para is a paragraph of one run per text.
func para(texts ...string) string {
	s := "<w:p>"
	for _, t := range texts {
		s += `<w:r><w:t xml:space="preserve">` + t + `</w:t></w:r>`
	}
	return s + "</w:p>"
}

func TestDOCX_Rules(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"paragraphs and runs", para("Hello ", "world.") + para("Second."), "Hello world.\nSecond."},
		{"tab, break, carriage return",
			`<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t><w:cr/><w:t>d</w:t><w:noBreakHyphen/><w:t>e</w:t></w:r></w:p>`,
			"a\tb\nc\nd-e"},
		{"indenting tab dropped", `<w:p><w:r><w:tab/><w:t>Indented.</w:t></w:r></w:p>`, "Indented."},
		{"table", `<w:tbl><w:tblPr/><w:tr><w:tc><w:tcPr/>` + para("A1") + `</w:tc><w:tc>` + para("B1") + para("more") + `</w:tc></w:tr>` +
			`<w:tr><w:tc>` + para("A2") + `</w:tc><w:tc>` + para("B2") + `</w:tc></w:tr></w:tbl>` + para("After."),
			"A1\tB1\nmore\nA2\tB2\nAfter."},
		{"tracked deletion excluded, insertion included",
			`<w:p><w:r><w:t xml:space="preserve">Kept </w:t></w:r><w:del w:id="1" w:author="x"><w:r><w:delText>GONE </w:delText></w:r></w:del>` +
				`<w:ins w:id="2" w:author="x"><w:r><w:t xml:space="preserve">added </w:t></w:r></w:ins><w:r><w:t>end.</w:t></w:r></w:p>`,
			"Kept added end."},
		{"tracked move counted once",
			`<w:p><w:moveFrom w:id="1"><w:r><w:t>FROM</w:t></w:r></w:moveFrom><w:r><w:t xml:space="preserve">x </w:t></w:r><w:moveTo w:id="2"><w:r><w:t>moved</w:t></w:r></w:moveTo></w:p>`,
			"x moved"},
		{"field code excluded, result kept",
			`<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGEREF _Toc1 \h </w:instrText></w:r>` +
				`<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
			"7"},
		{"hidden run excluded", `<w:p><w:r><w:t xml:space="preserve">seen </w:t></w:r><w:r><w:rPr><w:vanish/></w:rPr><w:t>HIDDEN</w:t></w:r>` +
			`<w:r><w:rPr><w:vanish w:val="false"/></w:rPr><w:t>too</w:t></w:r></w:p>`, "seen too"},
		{"paragraph properties ignored", `<w:p><w:pPr><w:rPr><w:del w:id="3"/></w:rPr><w:tabs><w:tab w:val="left" w:pos="1"/></w:tabs></w:pPr><w:r><w:t>x</w:t></w:r></w:p>`, "x"},
		{"alternate content read once",
			`<w:p><w:r><w:t>Host</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent>` + para("box") +
				`</w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent>` + para("box") +
				`</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>` + para("after"),
			"Host\nbox\nafter"},
		{"unpreserved whitespace trimmed", `<w:p><w:r><w:t>  a  </w:t></w:r><w:r><w:t xml:space="preserve"> b</w:t></w:r></w:p>`, "a b"},
		{"content controls", `<w:sdt><w:sdtPr><w:alias w:val="Title"/></w:sdtPr><w:sdtContent>` + para("In control") + `</w:sdtContent></w:sdt>`, "In control"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseWith(t, parseDOCX, docxOf(t, c.body)); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestDOCX_NotesAfterBody(t *testing.T) {
	notes := func(kind string, items ...string) string {
		s := `<?xml version="1.0"?><w:` + kind + `s ` + wordNS + `>` +
			`<w:` + kind + ` w:type="separator" w:id="-1"><w:p><w:r><w:separator/><w:t>SEP</w:t></w:r></w:p></w:` + kind + `>` +
			`<w:` + kind + ` w:type="continuationSeparator" w:id="0"><w:p><w:r><w:t>CONT</w:t></w:r></w:p></w:` + kind + `>`
		for _, it := range items {
			s += `<w:` + kind + ` w:id="1"><w:p><w:r><w:` + kind + `Ref/></w:r><w:r><w:tab/></w:r><w:r><w:t>` + it + `</w:t></w:r></w:p></w:` + kind + `>`
		}
		return s + `</w:` + kind + `s>`
	}
	body := `<w:p><w:r><w:t>Body text</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r><w:r><w:t xml:space="preserve"> continues.</w:t></w:r></w:p>`
	doc := docxOf(t, body,
		"word/footnotes.xml", notes("footnote", "First footnote.", "Second footnote."),
		"word/endnotes.xml", notes("endnote", "An endnote."),
		"word/header1.xml", `<w:hdr `+wordNS+`><w:p><w:r><w:t>RUNNING HEADER</w:t></w:r></w:p></w:hdr>`,
		"word/footer1.xml", `<w:ftr `+wordNS+`><w:p><w:r><w:t>PAGE FOOTER</w:t></w:r></w:p></w:ftr>`,
		"word/comments.xml", `<w:comments `+wordNS+`><w:comment><w:p><w:r><w:t>A COMMENT</w:t></w:r></w:p></w:comment></w:comments>`,
	)
	want := "Body text continues.\nFirst footnote.\nSecond footnote.\nAn endnote."
	if got := parseWith(t, parseDOCX, doc); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestDOCX_Relationships: the main part is found through _rels/.rels, and
// notes through its own relationships, wherever they are.
func TestDOCX_Relationships(t *testing.T) {
	doc := zipDeflated(t,
		"[Content_Types].xml", `<Types/>`,
		"_rels/.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/word/document2.xml"/></Relationships>`,
		"word/_rels/document2.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="notes/fn.xml"/>`+
			`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="http://x" TargetMode="External"/></Relationships>`,
		"word/document.xml", `<w:document `+wordNS+`><w:body>`+para("WRONG PART")+`</w:body></w:document>`,
		"word/document2.xml", `<w:document xmlns:w="http://purl.oclc.org/ooxml/wordprocessingml/main"><w:body>`+para("Strict body")+`</w:body></w:document>`,
		"word/notes/fn.xml", `<w:footnotes `+wordNS+`><w:footnote w:id="1">`+para("Note")+`</w:footnote></w:footnotes>`,
	)
	if got, want := parseWith(t, parseDOCX, doc), "Strict body\nNote"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDOCX_Errors(t *testing.T) {
	cases := []struct {
		name    string
		content []byte
		kind    Kind
		reason  string
	}{
		{"no document part", zipDeflated(t, "[Content_Types].xml", "<Types/>", "word/styles.xml", "<x/>"),
			ErrCorrupt, "the main document part (word/document.xml) is missing"},
		{"malformed xml", docxOf(t, "<w:p><w:r><w:t>unclosed</w:r></w:p>"), ErrCorrupt, "word/document.xml is not well-formed XML"},
		{"not a zip", []byte("PK\x03\x04 this is not really a zip"), ErrCorrupt, "not a valid zip archive"},
		{"encrypted", encryptedOOXML(), ErrEncrypted, "password-protected"},
		{"old word file", append(append([]byte{}, oleMagic...), make([]byte, 600)...), ErrUnsupported, "97-2003"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, err := parseDOCX(c.content, Options{})
			if err == nil {
				t.Fatalf("no error, text %q", text)
			}
			wantErrorKind(t, err, c.kind, c.reason)
		})
	}
}

func TestDOCX_Fixtures(t *testing.T) { testFixtures(t, parseDOCX, "*.docx") }

func TestDOCX_BrokenFixtures(t *testing.T) {
	// zipbomb.docx is a 100 MiB run of spaces: extract.limits.max_xml_token stops it.
	for name, kind := range map[string]Kind{"truncated.docx": ErrCorrupt, "zipbomb.docx": ErrTooComplex} {
		content, err := os.ReadFile(filepath.Join("testdata", "broken", name))
		if err != nil {
			t.Skip(err)
		}
		_, err = Text(content, name, "", Options{MaxUnzipped: 32 << 20})
		wantErrorKind(t, err, kind, "")
	}
}

func TestDOCX_ThroughText(t *testing.T) {
	for _, f := range []Format{FormatDOCX, FormatODT, FormatHTML} {
		if parsers[f] == nil {
			t.Errorf("no parser registered for %s", f)
		}
	}
	got, err := Text(docxOf(t, para("Via Text.")), "a.docx", "", Options{})
	if err != nil || got != "Via Text." {
		t.Fatalf("got %q, %v", got, err)
	}
}

func FuzzDOCX(f *testing.F) {
	f.Add(docxOf(f, para("Hello ", "world")+`<w:tbl><w:tr><w:tc>`+para("a")+`</w:tc></w:tr></w:tbl>`,
		"word/footnotes.xml", `<w:footnotes `+wordNS+`><w:footnote w:id="1">`+para("n")+`</w:footnote></w:footnotes>`))
	f.Add(docxOf(f, `<w:p><w:del><w:r><w:delText>x</w:delText></w:r></w:del><w:r><w:instrText>y</w:instrText><w:tab/><w:br/></w:r></w:p>`))
	f.Add(encryptedOOXML())
	for _, pattern := range []string{"testdata/*.docx", "testdata/broken/*.docx"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParser(t, parseDOCX, data, "f.docx", int(fuzzOptions.MaxUnzipped))
	})
}
