package extract

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

func init() { parsers[FormatDOCX] = parseDOCX }

// parseDOCX reads the text of a Word document: the body, then footnotes,
// then endnotes. Headers and footers are left out: they repeat on every
// page (a university's name, the thesis title) and would make every thesis
// of a faculty look alike. Comments are left out too.
//
// It reads the Office Open XML parts directly with a streaming
// encoding/xml decoder rather than through github.com/nguyenthenguyen/docx:
// that library hands back the raw XML of word/document.xml, so the XML
// would have to be walked here anyway, and it reads each part whole into
// memory, where streaming keeps a zip bomb's inflated bytes out of memory.
// Walking the XML ourselves also decides what the text is: tracked
// deletions out, insertions in, field codes out, tables laid out.
func parseDOCX(content []byte, opt Options) (string, error) {
	z, err := openZip(content, FormatDOCX, opt)
	if err != nil {
		return "", err
	}
	main := docxMainPart(z)
	out := blockText{bud: budgetOf(opt)}
	look := &docxLook{opt: opt, styles: loadDOCXStyles(z, main), page: white}
	if err := docxWalkPart(z, main, "the main document part", &out, look); err != nil {
		return "", err
	}
	// Notes follow the body, each on its own lines, so that a note does not
	// cut the sentence its reference stands in.
	for _, part := range docxNoteParts(z, main) {
		out.brk(lineSep)
		if err := docxWalkPart(z, part, "the notes", &out, look); err != nil {
			return "", err
		}
	}
	return out.String(), nil
}

// WordprocessingML namespaces: transitional (what Word and LibreOffice
// write) and strict ISO 29500.
const (
	nsW       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsMC      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
	nsXML     = "http://www.w3.org/XML/1998/namespace"
)

// docxSkipped are WordprocessingML elements whose content is not the
// document's text:
//   - del, moveFrom, delText, delInstrText: tracked deletions (and the
//     origin of a tracked move, whose text also appears at its moveTo);
//   - instrText: field codes ("PAGEREF _Toc123 \h"); the field's result is
//     ordinary runs and stays;
//   - pPr, sectPr, sdtPr, tblPr, ...: properties, which hold no text but
//     may hold run marks such as a deleted paragraph mark.
var docxSkipped = map[string]bool{
	"del": true, "moveFrom": true, "delText": true, "delInstrText": true, "instrText": true,
	"pPr": true, "sectPr": true, "sdtPr": true, "sdtEndPr": true, "tblPr": true, "tblGrid": true,
	"trPr": true, "tcPr": true, "ffData": true, "fldData": true, "footnotePr": true, "endnotePr": true,
}

// docxRunChars are the run elements that stand for a character.
var docxRunChars = map[string]string{"tab": "\t", "ptab": "\t", "br": "\n", "cr": "\n", "noBreakHyphen": "-"}

// docxLook is what the parts of one document share to decide what a
// reader sees (docx_hidden.go): the options that report hidden text, the
// styles, and the page colour.
type docxLook struct {
	opt    Options
	styles docxStyles
	page   rgb
}

// docxWalker writes the text of one WordprocessingML part.
type docxWalker struct {
	d      *xml.Decoder
	out    *blockText
	look   *docxLook
	stack  []string // local names of the open elements
	inText bool     // inside w:t
	keepWS bool     // that w:t has xml:space="preserve"
	hidden string   // why the current run cannot be seen; "": it can
	cells  int      // open table cells

	run     docxProps // the current run's direct formatting
	rStyle  string    // its character style
	pStyle  string    // the current paragraph's style
	pFill   docxFill  // the current paragraph's shading
	cellBg  []docxFill
	styledT []bool // open tables: has a table style
}

// docxFill is a shading that may be absent.
type docxFill struct {
	set bool
	c   rgb
}

func docxWalkPart(z *zipFile, name, what string, out *blockText, look *docxLook) error {
	rc, err := z.open(name, what)
	if err != nil {
		return err
	}
	defer rc.Close()
	w := &docxWalker{d: xml.NewDecoder(newXMLGuard(rc, out.bud)), out: out, look: look}
	if err := w.walk(); err != nil {
		return xmlPartError(z.format, name, err)
	}
	return nil
}

func (w *docxWalker) walk() error {
	for {
		w.out.bud.spend(1)
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
			if w.inText {
				s := string(t)
				if !w.keepWS {
					s = strings.Trim(s, " \t\r\n")
				}
				if w.hidden != "" {
					w.out.mark(w.look.opt.hide(w.hidden, hiddenChars(s)))
				} else {
					w.out.text(s)
				}
			}
		}
	}
}

func (w *docxWalker) start(t xml.StartElement) error {
	if t.Name.Space == nsMC && t.Name.Local == "Fallback" {
		// Markup compatibility offers the same content twice (a text box
		// as DrawingML in Choice, as VML in Fallback): read it once.
		return w.d.Skip()
	}
	if t.Name.Space != nsW && t.Name.Space != nsWStrict {
		w.stack = append(w.stack, "")
		return nil
	}
	name := t.Name.Local
	switch {
	case name == "pPr" && w.parent() == "p":
		return w.paragraphProps(t)
	case name == "tcPr" && w.parent() == "tc" && len(w.cellBg) > 0:
		var v struct {
			Shd docxShd `xml:"shd"`
		}
		if err := w.d.DecodeElement(&v, &t); err != nil {
			return err
		}
		w.cellBg[len(w.cellBg)-1] = v.Shd.fill()
		return nil
	case name == "tblPr" && w.parent() == "tbl" && len(w.styledT) > 0:
		var v struct {
			Style struct {
				Val string `xml:"val,attr"`
			} `xml:"tblStyle"`
		}
		if err := w.d.DecodeElement(&v, &t); err != nil {
			return err
		}
		w.styledT[len(w.styledT)-1] = v.Style.Val != ""
		return nil
	}
	if docxSkipped[name] || (name == "rPr" && w.parent() != "r") {
		return w.d.Skip()
	}
	switch name {
	case "footnote", "endnote":
		switch attr(t, "type") {
		case "separator", "continuationSeparator", "continuationNotice":
			return w.d.Skip() // the line above the notes, not a note
		}
	case "background":
		if c, ok := parseHexColor(attr(t, "color")); ok && w.parent() == "document" {
			w.look.page = c
		}
	case "r":
		w.run, w.rStyle = docxProps{}, ""
		w.hidden = w.hiddenReason()
	case "rPr":
	default:
		if w.parent() == "rPr" {
			if name == "rStyle" {
				w.rStyle = attr(t, "val")
			} else {
				w.run.set(t)
			}
			w.hidden = w.hiddenReason()
		}
	}
	switch name {
	case "t":
		w.inText = true
		w.keepWS = false
		for _, a := range t.Attr {
			if a.Name.Local == "space" && (a.Name.Space == nsXML || a.Name.Space == "xml") {
				w.keepWS = a.Value == "preserve"
			}
		}
	case "tab", "ptab", "br", "cr", "noBreakHyphen":
		if w.parent() == "r" && w.hidden == "" {
			if c := docxRunChars[name]; c == "\t" {
				w.out.tab()
			} else {
				w.out.text(c)
			}
		}
	case "p":
		w.out.brk(paragraphSep(w.cells > 0)) // a paragraph in a text box inside another starts a line
		w.pStyle, w.pFill = "", docxFill{}
	case "tc":
		w.cells++
		w.cellBg = append(w.cellBg, docxFill{})
	case "tbl":
		w.styledT = append(w.styledT, false)
	}
	w.stack = append(w.stack, name)
	return nil
}

// docxShd is a w:shd read by DecodeElement.
type docxShd struct {
	Val   string `xml:"val,attr"`
	Color string `xml:"color,attr"`
	Fill  string `xml:"fill,attr"`
}

func (s docxShd) fill() docxFill {
	c, ok := docxShading(xml.StartElement{Attr: []xml.Attr{
		{Name: xml.Name{Local: "val"}, Value: s.Val}, {Name: xml.Name{Local: "color"}, Value: s.Color},
		{Name: xml.Name{Local: "fill"}, Value: s.Fill}}})
	return docxFill{ok, c}
}

// paragraphProps reads the paragraph's style and shading from its w:pPr,
// the rest of which holds no text (docxSkipped).
func (w *docxWalker) paragraphProps(t xml.StartElement) error {
	var v struct {
		Style struct {
			Val string `xml:"val,attr"`
		} `xml:"pStyle"`
		Shd docxShd `xml:"shd"`
	}
	if err := w.d.DecodeElement(&v, &t); err != nil {
		return err
	}
	w.pStyle, w.pFill = v.Style.Val, v.Shd.fill()
	return nil
}

// hiddenReason says why the current run cannot be seen (docx_hidden.go).
func (w *docxWalker) hiddenReason() string {
	st := &w.look.styles
	pStyle := w.pStyle
	if pStyle == "" {
		pStyle = st.defaultPara
	}
	p := w.run.over(st.byID[w.rStyle]).over(st.byID[pStyle]).over(st.defaults)
	bg, bgOK := w.look.page, true
	switch {
	case w.pFill.set:
		bg = w.pFill.c
	case len(w.cellBg) > 0 && w.cellBg[len(w.cellBg)-1].set:
		bg = w.cellBg[len(w.cellBg)-1].c
	case len(w.styledT) > 0 && w.styledT[len(w.styledT)-1]:
		bgOK = false
	}
	return docxHiddenReason(p, bg, bgOK)
}

func (w *docxWalker) end(t xml.EndElement) {
	if len(w.stack) == 0 {
		return
	}
	name := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	switch name {
	case "t":
		w.inText = false
	case "p":
		w.out.brk(paragraphSep(w.cells > 0))
	case "tc":
		w.cells--
		w.cellBg = w.cellBg[:len(w.cellBg)-1]
		w.out.brk(tabSep)
	case "tr", "tbl", "footnote", "endnote", "txbxContent":
		w.out.brk(lineSep)
		if name == "tbl" {
			w.styledT = w.styledT[:len(w.styledT)-1]
		}
	}
}

func (w *docxWalker) parent() string {
	if len(w.stack) == 0 {
		return ""
	}
	return w.stack[len(w.stack)-1]
}

// attr returns the value of the attribute with the given local name.
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// isOn reads an OOXML on/off value: absent means on.
func isOn(v string) bool {
	switch v {
	case "0", "false", "off":
		return false
	}
	return true
}

// docxRels maps the relationship types of a part's .rels to their targets,
// resolved to part names. Relationship types differ between transitional
// and strict OOXML only in their prefix, so they are keyed by the last
// path element ("officeDocument", "footnotes").
func docxRels(z *zipFile, part string) map[string]string {
	dir, file := "", part
	if i := strings.LastIndex(part, "/"); i >= 0 {
		dir, file = part[:i+1], part[i+1:]
	}
	name := dir + "_rels/" + file + ".rels"
	if z.find(name) == nil {
		return nil
	}
	b, err := z.readAll(name, "relationships")
	if err != nil {
		return nil // relationships only locate parts; defaults follow
	}
	var rels struct {
		Rel []struct {
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
			Mode   string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if xml.Unmarshal(b, &rels) != nil {
		return nil
	}
	m := map[string]string{}
	for _, r := range rels.Rel {
		if r.Mode == "External" {
			continue
		}
		typ := r.Type[strings.LastIndex(r.Type, "/")+1:]
		if _, dup := m[typ]; !dup {
			m[typ] = zipPartPath(part, r.Target)
		}
	}
	return m
}

// docxMainPart finds the main document part through the package
// relationships; nearly always word/document.xml.
func docxMainPart(z *zipFile) string {
	if p := docxRels(z, "")["officeDocument"]; p != "" && z.find(p) != nil {
		return p
	}
	return "word/document.xml"
}

// docxNoteParts lists the footnotes and endnotes parts that exist.
func docxNoteParts(z *zipFile, main string) []string {
	rels := docxRels(z, main)
	var parts []string
	for _, typ := range []string{"footnotes", "endnotes"} {
		p := rels[typ]
		if p == "" {
			p = zipPartPath(main, typ+".xml")
		}
		if z.find(p) != nil {
			parts = append(parts, p)
		}
	}
	return parts
}

// xmlPartError turns an error from decoding part name of a file of the
// given format into an *Error: the zip limits' own errors pass through, XML
// syntax errors name the part, inflater errors say what broke.
func xmlPartError(format Format, name string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return newError(ErrCorrupt, "the %s file is damaged: %s is not well-formed XML (line %d: %s)", format.Name(), name, se.Line, se.Msg)
	}
	return newError(ErrCorrupt, "the %s file is damaged: %s cannot be unpacked: %s", format.Name(), name, zipProblem(err))
}
