package extract

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

func init() { parsers[FormatODT] = parseODT }

// parseODT reads the text of an OpenDocument text file: the body of
// content.xml, then the notes. Like DOCX, it leaves out what repeats on
// every page (headers and footers live in styles.xml, which is not read),
// tracked deletions, comments and generated index templates.
//
// A flat ODT (.fodt: the same document as one XML file) is read too, when
// detection hands one over: its office:body has the same structure.
func parseODT(content []byte, opt Options) (string, error) {
	if isFlatODT(content) {
		text, err := odtWalkXML(bytes.NewReader(content), opt, newODTStyles())
		if err != nil {
			return "", xmlPartError(FormatODT, "the flat ODT document", err)
		}
		return text, nil
	}
	z, err := openZip(content, FormatODT, opt)
	if err != nil {
		return "", err
	}
	// Password-protected ODF encrypts entries inside an ordinary zip and
	// says so in the manifest.
	if z.find("META-INF/manifest.xml") != nil {
		m, err := z.readAll("META-INF/manifest.xml", "the manifest")
		if err == nil && bytes.Contains(m, []byte("encryption-data")) {
			return "", newError(ErrEncrypted, "the %s file is password-protected; plagd needs a copy saved without a password", FormatODT.Name())
		}
	}
	rc, err := z.open("content.xml", "the document content")
	if err != nil {
		return "", err
	}
	defer rc.Close()
	text, err := odtWalkXML(rc, opt, loadODTStyles(z))
	if err != nil {
		return "", xmlPartError(FormatODT, "content.xml", err)
	}
	return text, nil
}

// isFlatODT recognises a flat ODT: XML whose root is office:document.
func isFlatODT(content []byte) bool {
	head := content[:min(len(content), 4096)]
	head = bytes.TrimPrefix(head, bomUTF8)
	return bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("<")) &&
		bytes.Contains(head, []byte("<office:document")) && bytes.Contains(head, []byte(nsODFOffice))
}

// OpenDocument namespaces.
const (
	nsODFOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	nsODFText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsODFTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsODFSVG    = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
	nsODFDraw   = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
)

// odtSkipped are elements inside the body whose content is not the
// document's text: tracked changes (the deleted text lives there; inserted
// text is in the body), comments, the number of a note (the note's text
// is kept), list labels, templates of generated indexes, object titles and
// descriptions, declarations and forms.
var odtSkipped = map[xml.Name]bool{
	{Space: nsODFText, Local: "tracked-changes"}:         true,
	{Space: nsODFOffice, Local: "annotation"}:            true,
	{Space: nsODFOffice, Local: "annotation-end"}:        true,
	{Space: nsODFText, Local: "note-citation"}:           true,
	{Space: nsODFText, Local: "number"}:                  true,
	{Space: nsODFText, Local: "sequence-decls"}:          true,
	{Space: nsODFText, Local: "variable-decls"}:          true,
	{Space: nsODFText, Local: "user-field-decls"}:        true,
	{Space: nsODFText, Local: "dde-connection-decls"}:    true,
	{Space: nsODFText, Local: "ruby-text"}:               true,
	{Space: nsODFOffice, Local: "forms"}:                 true,
	{Space: nsODFSVG, Local: "title"}:                    true,
	{Space: nsODFSVG, Local: "desc"}:                     true,
	{Space: nsODFTable, Local: "covered-table-cell"}:     true,
	{Space: nsODFDraw, Local: "object"}:                  true,
	{Space: nsODFDraw, Local: "object-ole"}:              true,
	{Space: nsODFTable, Local: "tracked-changes"}:        true,
	{Space: nsODFTable, Local: "table-source"}:           true,
	{Space: nsODFText, Local: "table-of-content-source"}: true,
}

// odtWalker writes the text of the office:body of an ODF document.
type odtWalker struct {
	d          *xml.Decoder
	body, note blockText
	out        *blockText // body, or note inside a note's body
	depth      int        // open elements
	inBody     bool
	paras      int // open paragraphs and headings: text is only there
	cells      int // open table cells
	savedCells int // cells open around the note being read
	bud        *budget

	opt    Options
	styles *odtStyles
	looks  []odtLook // per open element of the body: what its text looks like
}

// odtLook is how the text inside an element looks: its properties, and
// the reason it cannot be seen when a block hides it whatever its
// properties (a hidden section or paragraph).
type odtLook struct {
	props odtProps
	block string
	para  bool // a paragraph or heading
}

func (l odtLook) hidden() string {
	if l.block != "" {
		return l.block
	}
	return l.props.hiddenReason()
}

// odtWalkXML reads an ODF content.xml or flat ODT document.
func odtWalkXML(r io.Reader, opt Options, styles *odtStyles) (string, error) {
	bud := budgetOf(opt)
	w := &odtWalker{d: xml.NewDecoder(newXMLGuard(r, bud)), bud: bud, opt: opt, styles: styles}
	w.body.bud, w.note.bud = bud, bud
	w.out = &w.body
	if err := w.walk(); err != nil {
		return "", err
	}
	if w.note.b.Len() > 0 {
		w.body.brk(lineSep)
		w.body.text(w.note.String())
	}
	return w.body.String(), nil
}

func (w *odtWalker) walk() error {
	for {
		w.bud.spend(1)
		tok, err := w.d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := w.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			w.end(t)
		case xml.CharData:
			if w.paras > 0 {
				if why := w.look().hidden(); why != "" {
					w.out.mark(w.opt.hide(why, hiddenChars(string(t))))
				} else {
					w.out.flow(string(t))
				}
			}
		}
	}
}

func (w *odtWalker) start(t xml.StartElement) error {
	if !w.inBody {
		switch {
		case t.Name == (xml.Name{Space: nsODFOffice, Local: "body"}):
			w.inBody = true
		case t.Name.Space == nsODFOffice && (t.Name.Local == "automatic-styles" || t.Name.Local == "styles"):
			var x odtStylesXML
			if err := w.d.DecodeElement(&x, &t); err != nil {
				return err
			}
			w.styles.add(x)
			return nil
		case w.depth > 0:
			// Styles (with headers and footers), metadata, settings, fonts.
			return w.d.Skip()
		}
		w.depth++
		return nil
	}
	if odtSkipped[t.Name] {
		return w.d.Skip()
	}
	if t.Name == (xml.Name{Space: nsODFText, Local: "hidden-text"}) && attr(t, "is-hidden") == "true" {
		if w.paras > 0 {
			w.out.mark(w.opt.hide("hidden-text fields", hiddenChars(attr(t, "string-value"))))
		}
		return w.d.Skip()
	}
	w.depth++
	w.looks = append(w.looks, w.lookOf(t))
	if t.Name.Space != nsODFText && t.Name.Space != nsODFTable {
		return nil
	}
	hidden := w.look().hidden() != ""
	switch t.Name.Local {
	case "p", "h":
		w.paras++
		w.out.brk(paragraphSep(w.cells > 0)) // a paragraph in a frame or note inside another starts a line
	case "s":
		n := 1
		if c, err := strconv.Atoi(attr(t, "c")); err == nil {
			n = min(max(c, 1), 100) // a count of spaces is no reason to allocate gigabytes
		}
		if !hidden {
			w.out.text(strings.Repeat(" ", n))
		}
	case "tab":
		if !hidden {
			w.out.tab()
		}
	case "line-break":
		if !hidden {
			w.out.text("\n")
		}
	case "hidden-paragraph":
		if attr(t, "is-hidden") == "true" {
			for i := len(w.looks) - 1; i >= 0; i-- {
				w.looks[i].block = "hidden paragraphs"
				if w.looks[i].para {
					break
				}
			}
		}
	case "table-cell":
		w.cells++
	case "note-body":
		w.out = &w.note
		w.savedCells, w.cells = w.cells, 0
	}
	return nil
}

// look is how the text of the innermost open element looks.
func (w *odtWalker) look() odtLook {
	if len(w.looks) == 0 {
		return odtLook{}
	}
	return w.looks[len(w.looks)-1]
}

// lookOf is how the text inside element t looks: its style's properties
// over those of the element around it.
func (w *odtWalker) lookOf(t xml.StartElement) odtLook {
	l := w.look()
	l.para = false
	family := ""
	switch t.Name {
	case xml.Name{Space: nsODFText, Local: "p"}, xml.Name{Space: nsODFText, Local: "h"}:
		family, l.para = "paragraph", true
	case xml.Name{Space: nsODFText, Local: "span"}, xml.Name{Space: nsODFText, Local: "a"}:
		family = "text"
	case xml.Name{Space: nsODFTable, Local: "table-cell"}:
		family = "table-cell"
	case xml.Name{Space: nsODFText, Local: "section"}:
		if attr(t, "display") == "none" {
			l.block = "hidden sections"
		}
		return l
	default:
		return l
	}
	name := ""
	for _, a := range t.Attr {
		if a.Name.Local == "style-name" && (a.Name.Space == nsODFText || a.Name.Space == nsODFTable) {
			name = a.Value
		}
	}
	if l.para {
		// A paragraph inherits no highlighting from around it.
		l.props.textBgOK = false
	}
	l.props = w.styles.resolve(family, name).over(l.props)
	return l
}

func (w *odtWalker) end(t xml.EndElement) {
	w.depth--
	if w.inBody && len(w.looks) > 0 {
		w.looks = w.looks[:len(w.looks)-1]
	}
	if t.Name == (xml.Name{Space: nsODFOffice, Local: "body"}) {
		w.inBody = false
		return
	}
	if !w.inBody || (t.Name.Space != nsODFText && t.Name.Space != nsODFTable) {
		return
	}
	switch t.Name.Local {
	case "p", "h":
		w.paras--
		w.out.brk(paragraphSep(w.cells > 0))
	case "table-cell":
		w.cells--
		w.out.brk(tabSep)
	case "table-row", "table", "list-item":
		w.out.brk(lineSep)
	case "note-body":
		w.out.brk(lineSep)
		w.out = &w.body
		w.cells = w.savedCells
	}
}
