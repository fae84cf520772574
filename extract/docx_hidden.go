package extract

import (
	"encoding/xml"
	"strconv"
)

// What a Word reader cannot see. A run is hidden when its properties
// (direct formatting over its character style, over its paragraph's style,
// over the document defaults, styles following their basedOn chains) say
//   - w:vanish or w:specVanish: the "Hidden" font effect;
//   - w:sz of at most 2 half-points: a font of 1 pt or less;
//   - w:color within nearColorDiff of what lies under the run: its own
//     shading (w:shd fill) or highlight, else its paragraph's shading, else
//     its table cell's, else the page colour (w:background, white by
//     default). Inside a table that has a table style, whose conditional
//     formatting may fill the cells, the colour is not judged.

// docxProps are the run properties that decide whether a run is seen.
// Each has a set flag: an unset property falls through to the style
// below.
type docxProps struct {
	vanish, vanishSet bool
	colorSet, auto    bool // auto: "automatic" colour, black or white against its background
	color             rgb
	halfPoints        int // w:sz; 0: unset
	fillSet           bool
	fill              rgb
}

// over returns p with its unset properties taken from under.
func (p docxProps) over(under docxProps) docxProps {
	if !p.vanishSet {
		p.vanish, p.vanishSet = under.vanish, under.vanishSet
	}
	if !p.colorSet {
		p.colorSet, p.auto, p.color = under.colorSet, under.auto, under.color
	}
	if p.halfPoints == 0 {
		p.halfPoints = under.halfPoints
	}
	if !p.fillSet {
		p.fillSet, p.fill = under.fillSet, under.fill
	}
	return p
}

// set reads one run-property element (a child of w:rPr) into p.
func (p *docxProps) set(t xml.StartElement) {
	switch t.Name.Local {
	case "vanish", "specVanish":
		if on := isOn(attr(t, "val")); on || t.Name.Local == "vanish" {
			p.vanish, p.vanishSet = on, true
		}
	case "color":
		v := attr(t, "val")
		if v == "auto" {
			p.colorSet, p.auto = true, true
		} else if c, ok := parseHexColor(v); ok {
			p.colorSet, p.auto, p.color = true, false, c
		}
	case "sz":
		if n, err := strconv.Atoi(attr(t, "val")); err == nil && n > 0 {
			p.halfPoints = n
		}
	case "shd":
		if c, ok := docxShading(t); ok {
			p.fillSet, p.fill = true, c
		}
	case "highlight":
		if c, ok := parseColor(attr(t, "val")); ok {
			p.fillSet, p.fill = true, c
		}
	}
}

// docxShading reads the colour a w:shd paints: its fill, or for a solid
// pattern its pattern colour; "auto" and "nil" paint nothing.
func docxShading(t xml.StartElement) (rgb, bool) {
	if attr(t, "val") == "solid" {
		return parseHexColor(attr(t, "color"))
	}
	return parseHexColor(attr(t, "fill"))
}

// docxHiddenReason says why a run with properties p, over background bg
// (known: bgOK), cannot be seen, or "".
func docxHiddenReason(p docxProps, bg rgb, bgOK bool) string {
	switch {
	case p.vanishSet && p.vanish:
		return "hidden runs (w:vanish)"
	case p.halfPoints > 0 && p.halfPoints <= 2:
		return "tiny text (1 pt or less)"
	case p.fillSet && p.colorSet && !p.auto && p.color.near(p.fill):
		return "text in its background's colour"
	case !p.fillSet && bgOK && p.colorSet && !p.auto && p.color.near(bg):
		return "text in its background's colour"
	}
	return ""
}

// docxStyles are the run properties of a document's styles, resolved
// along basedOn, and its defaults.
type docxStyles struct {
	defaults    docxProps
	byID        map[string]docxProps
	defaultPara string // the paragraph style of paragraphs that name none
}

// loadDOCXStyles reads word/styles.xml (or the part the main part's
// relationships name). A missing or unreadable part means no styles: the
// styles only add findings, they never fail a document.
func loadDOCXStyles(z *zipFile, main string) docxStyles {
	st := docxStyles{byID: map[string]docxProps{}}
	part := docxRels(z, main)["styles"]
	if part == "" {
		part = zipPartPath(main, "styles.xml")
	}
	if z.find(part) == nil {
		return st
	}
	b, err := z.readAll(part, "the styles")
	if err != nil {
		return st
	}
	type rPr struct {
		Inner []struct {
			XMLName xml.Name
			Attr    []xml.Attr `xml:",any,attr"`
		} `xml:",any"`
	}
	var doc struct {
		Defaults struct {
			RPr rPr `xml:"rPrDefault>rPr"`
		} `xml:"docDefaults"`
		Styles []struct {
			ID      string `xml:"styleId,attr"`
			Type    string `xml:"type,attr"`
			Default string `xml:"default,attr"`
			BasedOn struct {
				Val string `xml:"val,attr"`
			} `xml:"basedOn"`
			RPr rPr `xml:"rPr"`
		} `xml:"style"`
	}
	if xml.Unmarshal(b, &doc) != nil {
		return st
	}
	props := func(r rPr) docxProps {
		var p docxProps
		for _, e := range r.Inner {
			p.set(xml.StartElement{Name: e.XMLName, Attr: e.Attr})
		}
		return p
	}
	st.defaults = props(doc.Defaults.RPr)
	own := map[string]docxProps{}
	based := map[string]string{}
	for _, s := range doc.Styles {
		own[s.ID] = props(s.RPr)
		based[s.ID] = s.BasedOn.Val
		if s.Type == "paragraph" && (s.Default == "1" || s.Default == "true") {
			st.defaultPara = s.ID
		}
	}
	for id := range own {
		p := own[id]
		seen := map[string]bool{id: true}
		for b := based[id]; b != "" && !seen[b]; b = based[b] { // a cycle stops
			seen[b] = true
			p = p.over(own[b])
		}
		st.byID[id] = p
	}
	return st
}
