package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// What a reader of an OpenDocument text cannot see. Text is hidden when
// the properties of its span, its paragraph and their styles (parent
// styles and the family's default style followed) say
//   - text:display="none" (Format > Character > Font Effects > Hidden);
//   - fo:font-size of 1 pt or less (percentages of the inherited size);
//   - fo:color within nearColorDiff of what lies under it: the text's
//     fo:background-color (highlighting), else its paragraph's, else its
//     table cell's, else white (the page colour of the master page is not
//     read);
// and whole blocks are hidden by a section with text:display="none", a
// hidden-paragraph field marked text:is-hidden="true" (from the field on:
// LibreOffice puts it first) and a hidden-text field so marked.

// odtProps are the text properties that decide whether text is seen; each
// has a set flag, so that an unset property is inherited.
type odtProps struct {
	none, noneSet   bool
	color           rgb
	colorSet        bool
	sizePt, sizePct float64 // one of them, or neither
	textBgOK        bool
	tbg             rgb
	paraBg          rgb
	paraBgOK        bool
	cellBg          rgb
	cellBgOK        bool
}

// over returns p with its unset properties taken from under.
func (p odtProps) over(under odtProps) odtProps {
	if !p.noneSet {
		p.none, p.noneSet = under.none, under.noneSet
	}
	if !p.colorSet {
		p.color, p.colorSet = under.color, under.colorSet
	}
	if p.sizePt == 0 && p.sizePct == 0 {
		p.sizePt, p.sizePct = under.sizePt, under.sizePct
	} else if p.sizePct != 0 && under.sizePt != 0 {
		p.sizePt, p.sizePct = under.sizePt*p.sizePct/100, 0
	} else if p.sizePct != 0 && under.sizePct != 0 {
		p.sizePct = p.sizePct * under.sizePct / 100
	}
	if !p.textBgOK {
		p.tbg, p.textBgOK = under.tbg, under.textBgOK
	}
	if !p.paraBgOK {
		p.paraBg, p.paraBgOK = under.paraBg, under.paraBgOK
	}
	if !p.cellBgOK {
		p.cellBg, p.cellBgOK = under.cellBg, under.cellBgOK
	}
	return p
}

// odtDefaultPt is the size of text whose styles give none (LibreOffice's).
const odtDefaultPt = 12

// hiddenReason says why text with properties p cannot be seen, or "".
func (p odtProps) hiddenReason() string {
	size := p.sizePt
	if size == 0 {
		size = odtDefaultPt
		if p.sizePct != 0 {
			size = odtDefaultPt * p.sizePct / 100
		}
	}
	bg := white
	switch {
	case p.textBgOK:
		bg = p.tbg
	case p.paraBgOK:
		bg = p.paraBg
	case p.cellBgOK:
		bg = p.cellBg
	}
	switch {
	case p.noneSet && p.none:
		return "hidden text (text:display none)"
	case size <= 1:
		return "tiny text (1 pt or less)"
	case p.colorSet && p.color.near(bg):
		return "text in its background's colour"
	}
	return ""
}

// odtStyleXML is a style:style or style:default-style as DecodeElement
// reads it.
type odtStyleXML struct {
	Name   string `xml:"name,attr"`
	Family string `xml:"family,attr"`
	Parent string `xml:"parent-style-name,attr"`
	Text   struct {
		Color   string `xml:"color,attr"`
		Size    string `xml:"font-size,attr"`
		Display string `xml:"display,attr"`
		Bg      string `xml:"background-color,attr"`
	} `xml:"text-properties"`
	Para struct {
		Bg string `xml:"background-color,attr"`
	} `xml:"paragraph-properties"`
	Cell struct {
		Bg string `xml:"background-color,attr"`
	} `xml:"table-cell-properties"`
}

// odtStylesXML is an office:styles or office:automatic-styles element.
type odtStylesXML struct {
	Defaults []odtStyleXML `xml:"default-style"`
	Styles   []odtStyleXML `xml:"style"`
}

func (s odtStyleXML) props() odtProps {
	var p odtProps
	switch s.Text.Display {
	case "none":
		p.none, p.noneSet = true, true
	case "true":
		p.noneSet = true
	}
	if c, ok := parseHexColor(s.Text.Color); ok {
		p.color, p.colorSet = c, true
	}
	p.sizePt, p.sizePct = odtLength(s.Text.Size)
	if c, ok := parseHexColor(s.Text.Bg); ok {
		p.tbg, p.textBgOK = c, true
	} else if s.Text.Bg == "transparent" {
		p.tbg, p.textBgOK = white, false
	}
	if c, ok := parseHexColor(s.Para.Bg); ok {
		p.paraBg, p.paraBgOK = c, true
	}
	if c, ok := parseHexColor(s.Cell.Bg); ok {
		p.cellBg, p.cellBgOK = c, true
	}
	return p
}

// odtLength reads a font size: in points (any ODF length unit), or a
// percentage of the inherited size.
func odtLength(s string) (pt, pct float64) {
	s = strings.TrimSpace(s)
	if v, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return 0, 0
		}
		return 0, max(f, 1e-9) // "0%" is a size, not "unset"
	}
	for _, u := range []struct {
		unit string
		pt   float64
	}{{"pt", 1}, {"pc", 12}, {"px", 0.75}, {"mm", 72 / 25.4}, {"cm", 72 / 2.54}, {"in", 72}} {
		if v, ok := strings.CutSuffix(s, u.unit); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 {
				return 0, 0
			}
			return max(f*u.pt, 1e-9), 0
		}
	}
	return 0, 0
}

// odtStyles are a document's styles by family and name, unresolved; resolve
// follows the parents.
type odtStyles struct {
	own      map[[2]string]odtStyleXML
	defaults map[string]odtProps // by family
}

func newODTStyles() *odtStyles {
	return &odtStyles{own: map[[2]string]odtStyleXML{}, defaults: map[string]odtProps{}}
}

// add records the styles of one office:styles or office:automatic-styles
// element; later ones (content.xml's automatic styles) win.
func (st *odtStyles) add(x odtStylesXML) {
	for _, s := range x.Defaults {
		st.defaults[s.Family] = s.props()
	}
	for _, s := range x.Styles {
		st.own[[2]string{s.Family, s.Name}] = s
	}
}

// resolve returns the properties of style name of family, its parents'
// and the family's default style under them; a cycle of parents stops.
func (st *odtStyles) resolve(family, name string) odtProps {
	var p odtProps
	seen := map[string]bool{}
	for name != "" && !seen[name] && len(seen) < 100 {
		seen[name] = true
		s, ok := st.own[[2]string{family, name}]
		if !ok {
			break
		}
		p = p.over(s.props())
		name = s.Parent
	}
	return p.over(st.defaults[family])
}

// loadODTStyles reads the common styles of styles.xml; a missing or
// unreadable part means none.
func loadODTStyles(z *zipFile) *odtStyles {
	st := newODTStyles()
	if z.find("styles.xml") == nil {
		return st
	}
	b, err := z.readAll("styles.xml", "the styles")
	if err != nil {
		return st
	}
	var doc struct {
		Styles odtStylesXML `xml:"styles"`
	}
	if xml.Unmarshal(b, &doc) == nil {
		st.add(doc.Styles)
	}
	return st
}
