package extract

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What a reader of an HTML page cannot see, as far as the markup itself
// says (no stylesheet is evaluated: that needs a CSS engine, and classes
// defined in a <style> block stay unseen by plagd):
//   - an element with the hidden attribute, or an inline style with
//     display:none, visibility:hidden or opacity:0, hides all it holds;
//   - text whose inherited inline font-size is 1 pt or less (font-size:0,
//     1px, 0.05em);
//   - text whose inherited colour (style color, <font color>) is within
//     nearColorDiff of the nearest background an element around it sets
//     (background-color, background, bgcolor), else of white.

// htmlLook is how the text inside an element looks.
type htmlLook struct {
	name    string // the element's name, to match end tags in tokenHTML
	color   rgb
	colorOK bool
	bg      rgb
	px      float64 // font size in CSS pixels; 0: the default (16px)
}

// htmlDefaultPx is a browser's default font size.
const htmlDefaultPx = 16

// hiddenReason says why text that looks like l cannot be seen, or "".
func (l htmlLook) hiddenReason() string {
	switch {
	case l.px > 0 && l.px <= 4.0/3: // 1 pt
		return "tiny text (1 pt or less)"
	case l.colorOK && l.color.near(l.bg):
		return "text in its background's colour"
	}
	return ""
}

// htmlHiddenElement says why element n hides all it holds, or "".
func htmlHiddenElement(n *html.Node) string {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return "hidden elements (hidden attribute)"
		case "style":
			for _, d := range cssDecls(a.Val) {
				switch {
				case d[0] == "display" && d[1] == "none":
					return "hidden elements (display:none)"
				case d[0] == "visibility" && (d[1] == "hidden" || d[1] == "collapse"):
					return "hidden elements (visibility:hidden)"
				case d[0] == "opacity":
					if f, err := strconv.ParseFloat(d[1], 64); err == nil && f <= 0.05 {
						return "hidden elements (opacity:0)"
					}
				}
			}
		}
	}
	return ""
}

// lookOf is how text inside element n looks, inside an element that looks
// like parent.
func htmlLookOf(n *html.Node, parent htmlLook) htmlLook {
	l := parent
	l.name = n.Data
	size := func(v string) {
		if px, ok := cssFontSize(v, parent.px); ok {
			l.px = px
		}
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "bgcolor":
			if c, ok := parseCSSColor(a.Val); ok {
				l.bg = c
			}
		case "color":
			if n.DataAtom == atom.Font {
				if c, ok := parseCSSColor(a.Val); ok {
					l.color, l.colorOK = c, true
				}
			}
		}
	}
	for _, a := range n.Attr {
		if a.Key != "style" {
			continue
		}
		for _, d := range cssDecls(a.Val) {
			switch d[0] {
			case "color":
				if c, ok := parseCSSColor(d[1]); ok {
					l.color, l.colorOK = c, true
				}
			case "background-color", "background":
				for _, f := range strings.Fields(d[1]) {
					if c, ok := parseCSSColor(f); ok {
						l.bg = c
						break
					}
				}
			case "font-size":
				size(d[1])
			case "font":
				for _, f := range strings.Fields(d[1]) {
					if _, after, ok := strings.Cut(f, "/"); ok { // size/line-height
						f = strings.TrimSuffix(f, "/"+after)
					}
					size(f)
				}
			}
		}
	}
	return l
}

// cssDecls splits an inline style into lower-case [property, value] pairs
// with !important and spaces at the ends dropped.
func cssDecls(style string) [][2]string {
	var out [][2]string
	for _, d := range strings.Split(style, ";") {
		k, v, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.ToLower(v)), "!important"))
		out = append(out, [2]string{strings.TrimSpace(strings.ToLower(k)), v})
	}
	return out
}

// parseCSSColor reads a CSS colour: a hex colour, rgb()/rgba() with a
// fully opaque or unstated alpha, or a colour name.
func parseCSSColor(s string) (rgb, bool) {
	s = strings.TrimSpace(strings.ToLower(s))
	if inner, ok := strings.CutPrefix(s, "rgb"); ok {
		inner = strings.TrimPrefix(inner, "a")
		inner = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(inner), "("), ")")
		parts := strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ' ' || r == '/' })
		if len(parts) < 3 {
			return rgb{}, false
		}
		if len(parts) == 4 {
			if a, err := strconv.ParseFloat(strings.TrimSuffix(parts[3], "%"), 64); err != nil || a == 0 {
				return rgb{}, false // transparent text is caught as opacity would be; not here
			}
		}
		var v [3]uint8
		for i := range v {
			p := parts[i]
			f, err := strconv.ParseFloat(strings.TrimSuffix(p, "%"), 64)
			if err != nil {
				return rgb{}, false
			}
			if strings.HasSuffix(p, "%") {
				f = f * 255 / 100
			}
			v[i] = uint8(min(max(f, 0), 255))
		}
		return rgb{v[0], v[1], v[2]}, true
	}
	if s == "transparent" {
		return rgb{}, false
	}
	if s != "" && s[0] != '#' {
		if c, ok := namedColors[s]; ok {
			return c, true
		}
		if s == "snow" || s == "ghostwhite" || s == "whitesmoke" || s == "ivory" || s == "mintcream" || s == "azure" || s == "floralwhite" {
			return rgb{0xfa, 0xfa, 0xfa}, true
		}
		return rgb{}, false
	}
	return parseHexColor(s)
}

// cssFontSize reads a CSS font size in pixels; relative sizes (em, %) are
// of the parent's size, parentPx (0: the default).
func cssFontSize(v string, parentPx float64) (float64, bool) {
	if parentPx == 0 {
		parentPx = htmlDefaultPx
	}
	v = strings.TrimSpace(v)
	if v == "0" {
		return 1e-9, true
	}
	for _, u := range []struct {
		unit string
		px   float64
	}{{"px", 1}, {"pt", 4.0 / 3}, {"pc", 16}, {"mm", 96 / 25.4}, {"cm", 96 / 2.54}, {"in", 96},
		{"rem", htmlDefaultPx}, {"em", parentPx}, {"%", parentPx / 100}} {
		if n, ok := strings.CutSuffix(v, u.unit); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if err != nil || f < 0 {
				return 0, false
			}
			return max(f*u.px, 1e-9), true
		}
	}
	return 0, false
}

// htmlTextChars counts the characters of the text under n, as a hidden
// element's flag counts them; dropped elements (scripts, styles) hold no
// text and are not counted.
func htmlTextChars(n *html.Node, bud *budget) int {
	chars := 0
	for c := n.FirstChild; c != nil; c = htmlNext(c, n) {
		if bud != nil {
			bud.spend(1)
		}
		if c.Type == html.TextNode && !htmlDroppedAncestor(c, n) {
			chars += hiddenChars(c.Data)
		}
	}
	return chars
}

// htmlDroppedAncestor tells whether a node between c and root (exclusive)
// is an element whose content is never text.
func htmlDroppedAncestor(c, root *html.Node) bool {
	for p := c.Parent; p != nil && p != root; p = p.Parent {
		if htmlDropped[p.DataAtom] {
			return true
		}
	}
	return false
}
