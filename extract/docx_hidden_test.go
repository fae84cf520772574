package extract

import (
	"context"
	"strings"
	"testing"
)

func docxRun(rPr, text string) string {
	return `<w:r><w:rPr>` + rPr + `</w:rPr><w:t xml:space="preserve">` + text + `</w:t></w:r>`
}

const docxTestStyles = `<?xml version="1.0"?><w:styles ` + wordNS + `>` +
	`<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="24"/></w:rPr></w:rPrDefault></w:docDefaults>` +
	`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>` +
	`<w:style w:type="character" w:styleId="Ghost"><w:rPr><w:color w:val="FFFFFF"/></w:rPr></w:style>` +
	`<w:style w:type="character" w:styleId="GhostChild"><w:basedOn w:val="Ghost"/></w:style>` +
	`<w:style w:type="character" w:styleId="Loop1"><w:basedOn w:val="Loop2"/></w:style>` +
	`<w:style w:type="character" w:styleId="Loop2"><w:basedOn w:val="Loop1"/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Dark"><w:rPr><w:color w:val="FFFFFF"/><w:shd w:val="clear" w:fill="1F3864"/></w:rPr></w:style>` +
	`</w:styles>`

// TestDOCX_Hidden: a copied paragraph with letters hidden between its
// words, each way Word can hide them, reads as the clean paragraph and is
// flagged; white text a reader does see is kept and not flagged.
func TestDOCX_Hidden(t *testing.T) {
	vis := func(s string) string { return docxRun("", s) }
	for _, c := range []struct {
		name    string
		rPr     string // the hidden runs' properties
		pPr     string
		before  string // the document's body starts with this (page background)
		table   string // "": no table; else the table's properties, cell properties
		hidden  bool
		rStyled bool
	}{
		{name: "vanish", rPr: `<w:vanish/>`, hidden: true},
		{name: "specVanish", rPr: `<w:specVanish/>`, hidden: true},
		{name: "white", rPr: `<w:color w:val="FFFFFF"/>`, hidden: true},
		{name: "near-white", rPr: `<w:color w:val="F2F3F1"/>`, hidden: true},
		{name: "tiny", rPr: `<w:sz w:val="2"/>`, hidden: true},
		{name: "white by character style", rPr: `<w:rStyle w:val="GhostChild"/>`, hidden: true},
		{name: "white on white highlight", rPr: `<w:color w:val="FFFFFF"/><w:highlight w:val="white"/>`, hidden: true},
		{name: "style cycle", rPr: `<w:rStyle w:val="Loop1"/>`, hidden: false},
		{name: "vanish off", rPr: `<w:vanish w:val="0"/>`, hidden: false},
		{name: "light grey is seen", rPr: `<w:color w:val="D9D9D9"/>`, hidden: false},
		{name: "small is seen", rPr: `<w:sz w:val="8"/>`, hidden: false},
		{name: "auto colour", rPr: `<w:color w:val="auto"/>`, hidden: false},
		{name: "white on dark shading", rPr: `<w:color w:val="FFFFFF"/><w:shd w:val="clear" w:color="auto" w:fill="1F3864"/>`, hidden: false},
		{name: "white on dark highlight", rPr: `<w:color w:val="FFFFFF"/><w:highlight w:val="darkBlue"/>`, hidden: false},
		{name: "white in a dark paragraph", rPr: `<w:color w:val="FFFFFF"/>`, pPr: `<w:shd w:val="clear" w:fill="000000"/>`, hidden: false},
		{name: "white paragraph style on dark", pPr: `<w:pStyle w:val="Dark"/>`, hidden: false},
		{name: "white on a dark page", rPr: `<w:color w:val="FFFFFF"/>`, before: `<w:background w:color="202020"/>`, hidden: false},
		{name: "white in a dark cell", rPr: `<w:color w:val="FFFFFF"/>`, table: `<w:tblPr/>|<w:tcPr><w:shd w:val="clear" w:fill="000000"/></w:tcPr>`, hidden: false},
		{name: "white in a styled table", rPr: `<w:color w:val="FFFFFF"/>`, table: `<w:tblPr><w:tblStyle w:val="GridTable4"/></w:tblPr>|<w:tcPr/>`, hidden: false},
		{name: "white in a plain cell", rPr: `<w:color w:val="FFFFFF"/>`, table: `<w:tblPr/>|<w:tcPr/>`, hidden: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, n := interleave(vis, func(s string) string { return docxRun(c.rPr, s) })
			body = `<w:p><w:pPr>` + c.pPr + `</w:pPr>` + body + `</w:p>`
			if c.table != "" {
				tbl, tc, _ := strings.Cut(c.table, "|")
				body = `<w:tbl>` + tbl + `<w:tr><w:tc>` + tc + body + `</w:tc></w:tr></w:tbl>`
			}
			doc := docxOf(t, body, "word/styles.xml", docxTestStyles)
			if c.before != "" {
				doc = docxWith(t, c.before, body)
			}
			r, err := Read(context.Background(), doc, "a.docx", "", Options{})
			if !c.hidden {
				// Seen: the letters stay in the text, no flag.
				if err != nil || r.Flags != nil || !strings.Contains(r.Text, "qz") {
					t.Fatalf("seen text changed: %q %+v %v", r.Text, r.Flags, err)
				}
				return
			}
			wantClean(t, r, err, n)
		})
	}
}

// docxWith builds a DOCX whose w:document holds before, then the body.
func docxWith(t *testing.T, before, body string) []byte {
	return zipDeflated(t,
		"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+
			`<w:document `+wordNS+`>`+before+`<w:body>`+body+`</w:body></w:document>`,
		"word/styles.xml", docxTestStyles)
}
