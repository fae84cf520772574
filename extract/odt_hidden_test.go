package extract

import (
	"context"
	"strings"
	"testing"
)

const odtTestStyles = `<?xml version="1.0" encoding="UTF-8"?><office:document-styles ` + odfNS +
	` xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"><office:styles>` +
	`<style:default-style style:family="paragraph"><style:text-properties fo:font-size="12pt"/></style:default-style>` +
	`<style:style style:name="Ghost" style:family="text"><style:text-properties fo:color="#ffffff"/></style:style>` +
	`<style:style style:name="GhostChild" style:family="text" style:parent-style-name="Ghost"/>` +
	`<style:style style:name="Loop1" style:family="text" style:parent-style-name="Loop2"/>` +
	`<style:style style:name="Loop2" style:family="text" style:parent-style-name="Loop1"/>` +
	`<style:style style:name="Small" style:family="paragraph"><style:text-properties fo:font-size="8pt"/></style:style>` +
	`</office:styles></office:document-styles>`

// odtHiddenOf builds an ODT with the common styles above, automatic
// styles auto (style:style elements) and body.
func odtHiddenOf(t *testing.T, auto, body string) []byte {
	content := `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS +
		` xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0">` +
		`<office:automatic-styles>` + auto + `</office:automatic-styles>` +
		`<office:body><office:text>` + body + `</office:text></office:body></office:document-content>`
	return zipDeflated(t, "mimetype", "application/vnd.oasis.opendocument.text", "content.xml", content, "styles.xml", odtTestStyles)
}

// TestODT_Hidden: a copied paragraph with letters hidden between its words,
// each way an OpenDocument text can hide them, reads as the clean paragraph
// and is flagged; text a reader does see is kept and not flagged.
func TestODT_Hidden(t *testing.T) {
	vis := func(s string) string { return s }
	for _, c := range []struct {
		name   string
		props  string // the hidden spans' automatic style T1's text properties
		span   string // style of the hidden spans, T1 when empty
		para   string // paragraph attributes and automatic style P1's properties: "attrs|props"
		cell   string // table cell background; "": no table
		hidden bool
	}{
		{name: "display none", props: `text:display="none"`, hidden: true},
		{name: "white", props: `fo:color="#ffffff"`, hidden: true},
		{name: "near white", props: `fo:color="#f4f2f0"`, hidden: true},
		{name: "tiny", props: `fo:font-size="1pt"`, hidden: true},
		{name: "tiny in mm", props: `fo:font-size="0.2mm"`, hidden: true},
		{name: "tiny by percentage", props: `fo:font-size="5%"`, hidden: true},
		{name: "tiny by percentage of a small paragraph", props: `fo:font-size="12%"`, para: `text:style-name="Small"|`, hidden: true},
		{name: "white by common style", span: "GhostChild", hidden: true},
		{name: "white in a plain cell", props: `fo:color="#ffffff"`, cell: "none", hidden: true},
		{name: "style cycle", span: "Loop1", hidden: false},
		{name: "grey is seen", props: `fo:color="#d9d9d9"`, hidden: false},
		{name: "small is seen", props: `fo:font-size="6pt"`, hidden: false},
		{name: "half size is seen", props: `fo:font-size="50%"`, hidden: false},
		{name: "white highlighted dark", props: `fo:color="#ffffff" fo:background-color="#203864"`, hidden: false},
		{name: "white in a dark paragraph", props: `fo:color="#ffffff"`, para: `text:style-name="P1"|<style:paragraph-properties fo:background-color="#000000"/>`, hidden: false},
		{name: "white in a dark cell", props: `fo:color="#ffffff"`, cell: "#101010", hidden: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			attrs, pprops, _ := strings.Cut(c.para, "|")
			auto := `<style:style style:name="T1" style:family="text"><style:text-properties ` + c.props + `/></style:style>` +
				`<style:style style:name="P1" style:family="paragraph">` + pprops + `</style:style>` +
				`<style:style style:name="C1" style:family="table-cell"><style:table-cell-properties fo:background-color="` + c.cell + `"/></style:style>`
			span := c.span
			if span == "" {
				span = "T1"
			}
			body, n := interleave(vis, func(s string) string { return `<text:span text:style-name="` + span + `">` + s + `</text:span>` })
			body = `<text:p ` + attrs + `>` + body + `</text:p>`
			if c.cell != "" {
				body = `<table:table><table:table-row><table:table-cell table:style-name="C1">` + body + `</table:table-cell></table:table-row></table:table>`
			}
			r, err := Read(context.Background(), odtHiddenOf(t, auto, body), "a.odt", "", Options{})
			if !c.hidden {
				if err != nil || r.Flags != nil || !strings.Contains(r.Text, "qz") {
					t.Fatalf("seen text changed: %q %+v %v", r.Text, r.Flags, err)
				}
				return
			}
			wantClean(t, r, err, n)
		})
	}
}

// TestODT_HiddenBlocks: hidden sections, paragraphs and hidden-text fields
// are left out and flagged.
func TestODT_HiddenBlocks(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"section", `<text:section text:name="S" text:display="none"><text:p>secret filler</text:p></text:section>`},
		{"hidden paragraph", `<text:p><text:hidden-paragraph text:condition="ooow:1" text:is-hidden="true"/>secret filler</text:p>`},
		{"hidden-text field", `<text:p><text:hidden-text text:condition="ooow:1" text:string-value="secret filler" text:is-hidden="true"/></text:p>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `<text:p>` + copiedParagraph + `</text:p>` + c.body
			r, err := Read(context.Background(), odtHiddenOf(t, "", body), "a.odt", "", Options{})
			wantClean(t, r, err, len("secretfiller"))
		})
	}
	r, err := Read(context.Background(), odtHiddenOf(t, "", `<text:p>`+copiedParagraph+`</text:p><text:p><text:hidden-paragraph text:is-hidden="false"/>shown</text:p>`), "a.odt", "", Options{})
	if err != nil || !strings.HasSuffix(r.Text, "shown") || r.Flags != nil {
		t.Fatalf("a shown paragraph: %q %+v %v", r.Text, r.Flags, err)
	}
}
