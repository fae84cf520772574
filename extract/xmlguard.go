package extract

import (
	"fmt"
	"io"
)

// xmlGuard stands between a zip entry (or a flat XML file) and
// encoding/xml. encoding/xml holds every token whole: a comment, a
// processing instruction, a CDATA section, a tag with its attributes, a
// run of text between two tags. A DOCX of 7 MB can hold a 1 GiB comment
// (it compresses 150 times, under the zip ratio cap), which would be held
// whole. The guard reads the bytes as they stream past, tells which kind
// of token they are in, and fails the document with ErrTooComplex as soon
// as one token is longer than Limits.MaxXMLToken, before the decoder has
// buffered more than that. It passes the bytes through unchanged.
type xmlGuard struct {
	r     io.Reader
	bud   *budget
	max   int
	state xmlState
	run   int      // bytes of the current token
	last  [12]byte // the last bytes of the current markup, for its end
	quote byte     // the quote open in a tag
	depth int      // '[' open in a directive (an internal DTD subset)
}

type xmlState int

const (
	xmlText xmlState = iota
	xmlOpen          // "<" read
	xmlBang          // "<!" read: comment, CDATA or directive
	xmlTag
	xmlComment
	xmlCDATA
	xmlPI
	xmlDirective
)

func newXMLGuard(r io.Reader, bud *budget) *xmlGuard {
	return &xmlGuard{r: r, bud: bud, max: bud.lim.MaxXMLToken}
}

func (g *xmlGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.bud.spend(1 + n>>6)
	for _, c := range p[:n] {
		g.step(c)
	}
	return n, err
}

func (g *xmlGuard) step(c byte) {
	g.run++
	copy(g.last[:], g.last[1:])
	g.last[len(g.last)-1] = c
	if g.run > g.max {
		g.bud.exceeded(fmt.Sprintf("an XML part holds a single %s longer", g.state.what()), fmt.Sprintf("%d bytes", g.max), "max_xml_token")
	}
	switch g.state {
	case xmlText:
		if c == '<' {
			g.state, g.run = xmlOpen, 1
		}
	case xmlOpen:
		switch c {
		case '!':
			g.state = xmlBang
		case '?':
			g.state = xmlPI
		default:
			g.state = xmlTag
			g.tag(c)
		}
	case xmlBang:
		switch {
		case g.ends("<!--"):
			g.state = xmlComment
		case g.ends("<![CDATA["):
			g.state = xmlCDATA
		case g.run >= 9 || (c != '-' && c != '[' && (c < 'A' || c > 'Z')):
			g.state = xmlDirective
			g.directive(c)
		}
	case xmlTag:
		g.tag(c)
	case xmlComment:
		if c == '>' && g.ends("-->") {
			g.end()
		}
	case xmlCDATA:
		if c == '>' && g.ends("]]>") {
			g.end()
		}
	case xmlPI:
		if c == '>' && g.ends("?>") {
			g.end()
		}
	case xmlDirective:
		g.directive(c)
	}
}

func (g *xmlGuard) tag(c byte) {
	switch {
	case g.quote != 0:
		if c == g.quote {
			g.quote = 0
		}
	case c == '"' || c == '\'':
		g.quote = c
	case c == '>':
		g.end()
	}
}

func (g *xmlGuard) directive(c byte) {
	switch c {
	case '[':
		g.depth++
	case ']':
		g.depth = max(g.depth-1, 0)
	case '>':
		if g.depth == 0 {
			g.end()
		}
	}
}

// ends reports whether the bytes read so far end with s.
func (g *xmlGuard) ends(s string) bool {
	if g.run < len(s) {
		return false
	}
	return string(g.last[len(g.last)-len(s):]) == s
}

func (g *xmlGuard) end() {
	g.state, g.run, g.quote, g.depth = xmlText, 0, 0, 0
}

func (s xmlState) what() string {
	switch s {
	case xmlText:
		return "run of text"
	case xmlComment:
		return "comment"
	case xmlCDATA:
		return "CDATA section"
	case xmlPI:
		return "processing instruction"
	case xmlDirective, xmlBang:
		return "declaration"
	}
	return "tag"
}
