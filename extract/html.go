package extract

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

func init() { parsers[FormatHTML] = parseHTML }

// parseHTML returns the text a reader sees in a browser: the body's visible
// text, with block elements on lines of their own, table cells separated by
// tabs and whitespace collapsed as browsers collapse it (kept in <pre>).
//
// What is dropped, and why:
//   - script, style, template, noscript: code and markup, never read;
//   - the whole head, the title included: the title repeats the first
//     heading or names the site ("Thesis – Faculty of Arts"), boilerplate
//     that would match across every page of one site;
//   - iframe, object, embed, svg, canvas, select, textarea: embedded content
//     or form controls, whose text is fallback content or input, not prose;
//   - footnote reference numbers (see htmlNoteMark), and the header and
//     footer divs of LibreOffice's export;
//   - text a reader does not see (html_hidden.go): elements with the
//     hidden attribute or an inline display:none or visibility:hidden
//     style, and text that inline styles make white on white or tiny, a
//     place to pad a text with words nobody reads. It is flagged.
//     Stylesheets are not evaluated (that needs a CSS engine), so text
//     hidden by a class stays.
//
// The HTML5 parser (golang.org/x/net/html) is used rather than a tokenizer
// because it builds the tree browsers build from sloppy markup: unclosed <p>
// and <li>, stray end tags, tables inside paragraphs. A hidden <div> must
// hide exactly what a browser hides, and that needs the real tree.
func parseHTML(content []byte, opt Options) (string, error) {
	s, err := decodeHTML(content)
	if err != nil {
		return "", err
	}
	out := blockText{bud: budgetOf(opt)}
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		// The parser refuses elements nested over 512 deep, which old
		// editors produce with unclosed <font> or <div> tags. The same
		// rules applied token by token still read such a file.
		tokenHTML(s, &out, opt)
		return out.String(), nil
	}
	walkHTML(doc, &out, opt)
	return out.String(), nil
}

// decodeHTML turns the bytes of an HTML file into UTF-8, in order of
// certainty: a byte-order mark; bytes that are valid UTF-8 (legacy 8-bit
// text with accented letters practically never is, while a <meta> copied
// from an old template often lies); the charset named by a <meta> tag;
// otherwise decodePlain's detection (UTF-16 without BOM, Windows-1250/1252,
// ISO-8859-2).
func decodeHTML(content []byte) (string, error) {
	if bytes.HasPrefix(content, bomUTF8) || bytes.HasPrefix(content, bomUTF16LE) || bytes.HasPrefix(content, bomUTF16BE) {
		return decodePlain(content)
	}
	if utf8.Valid(content) {
		return string(content), nil
	}
	if enc := metaCharset(content); enc != nil {
		if s, err := enc.NewDecoder().Bytes(content); err == nil {
			return string(s), nil
		}
	}
	return decodePlain(content)
}

// metaCharset finds the encoding declared by <meta charset> or <meta
// http-equiv="Content-Type" content="...; charset=..."> near the start of the
// document, as browsers' prescan does. It returns nil for no declaration, an
// unknown name, or a declaration of UTF-8 or UTF-16 (the bytes already showed
// they are not valid UTF-8, and HTML treats a UTF-16 <meta> as UTF-8: a file
// whose <meta> can be read is not UTF-16).
func metaCharset(content []byte) encoding.Encoding {
	z := html.NewTokenizer(bytes.NewReader(content[:min(len(content), 4096)]))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if atom.Lookup(name) == atom.Body {
				return nil
			}
			if atom.Lookup(name) != atom.Meta || !hasAttr {
				continue
			}
			var label, httpEquiv, value string
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					label = string(v)
				case "http-equiv":
					httpEquiv = strings.ToLower(string(v))
				case "content":
					value = string(v)
				}
			}
			if label == "" && httpEquiv == "content-type" {
				if _, after, ok := strings.Cut(strings.ToLower(value), "charset="); ok {
					label = strings.Trim(strings.TrimSpace(strings.SplitN(after, ";", 2)[0]), `"'`)
				}
			}
			if label == "" {
				continue
			}
			enc, err := htmlindex.Get(label)
			if err != nil || enc == encoding.Nop || enc == unicode.UTF8 {
				return nil
			}
			if n, _ := htmlindex.Name(enc); strings.HasPrefix(n, "utf-16") {
				return nil
			}
			return enc
		}
	}
}

// Elements whose content is never visible text.
var htmlDropped = map[atom.Atom]bool{
	atom.Head: true, atom.Title: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Svg: true,
	atom.Canvas: true, atom.Select: true, atom.Datalist: true, atom.Textarea: true,
	atom.Audio: true, atom.Video: true,
}

// Elements that browsers render as blocks: their text starts and ends a line.
var htmlBlocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Body: true,
	atom.Caption: true, atom.Center: true, atom.Dd: true, atom.Details: true, atom.Dialog: true,
	atom.Dir: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true,
	atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hgroup: true, atom.Hr: true, atom.Html: true, atom.Legend: true, atom.Li: true,
	atom.Listing: true, atom.Main: true, atom.Menu: true, atom.Nav: true, atom.Ol: true, atom.P: true,
	atom.Plaintext: true, atom.Pre: true, atom.Section: true, atom.Summary: true, atom.Table: true,
	atom.Tbody: true, atom.Tfoot: true, atom.Thead: true, atom.Tr: true, atom.Ul: true, atom.Xmp: true,
}

// Elements whose whitespace is kept as written.
var htmlPreformatted = map[atom.Atom]bool{atom.Pre: true, atom.Listing: true, atom.Plaintext: true, atom.Xmp: true}

// walkHTML writes the visible text under root. It walks the tree through
// the parent and sibling links rather than recursively, so that a document
// nested a million elements deep cannot exhaust the stack.
func walkHTML(root *html.Node, out *blockText, opt Options) {
	w := htmlWalker{out: out, opt: opt}
	n := root
	for {
		if out.bud != nil {
			out.bud.spend(1)
		}
		entered := w.enter(n)
		if entered && n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		if entered {
			w.leave(n)
		}
		// Every ancestor climbed through was entered, or we would not be in it.
		for n != root && n.NextSibling == nil {
			n = n.Parent
			w.leave(n)
		}
		if n == root {
			return
		}
		n = n.NextSibling
	}
}

// htmlWalker holds the layout state of walkHTML.
type htmlWalker struct {
	out   *blockText
	pre   int // open preformatted elements
	cells int // open table cells
	opt   Options
	looks []htmlLook // per entered element: how its text looks
}

func (w *htmlWalker) look() htmlLook {
	if len(w.looks) == 0 {
		return htmlLook{bg: white}
	}
	return w.looks[len(w.looks)-1]
}

// enter starts node n and tells whether its children are to be read.
func (w *htmlWalker) enter(n *html.Node) bool {
	switch n.Type {
	case html.DocumentNode:
		return true
	case html.TextNode:
		if why := w.look().hiddenReason(); why != "" {
			w.out.mark(w.opt.hide(why, hiddenChars(n.Data)))
		} else if w.pre > 0 {
			w.out.text(n.Data)
		} else {
			w.out.flow(n.Data)
		}
	case html.ElementNode:
		if htmlHidden(n) || htmlNoteMark(n) {
			return false
		}
		if why := htmlHiddenElement(n); why != "" {
			w.out.mark(w.opt.hide(why, htmlTextChars(n, w.out.bud)))
			return false
		}
		w.looks = append(w.looks, htmlLookOf(n, w.look()))
		switch {
		case n.DataAtom == atom.Br:
			w.out.text("\n")
		case n.DataAtom == atom.Td || n.DataAtom == atom.Th:
			w.cells++
		case htmlBlocks[n.DataAtom]:
			w.out.brk(w.blockSep(n))
		}
		if htmlPreformatted[n.DataAtom] {
			w.pre++
		}
		return true
	}
	return false
}

// leave ends an element that was entered.
func (w *htmlWalker) leave(n *html.Node) {
	if n.Type != html.ElementNode {
		return
	}
	if k := len(w.looks); k > 0 && w.looks[k-1].name == n.Data {
		w.looks = w.looks[:k-1] // tokenHTML's stray end tags match nothing
	}
	switch {
	case n.DataAtom == atom.Td || n.DataAtom == atom.Th:
		w.cells = max(w.cells-1, 0) // stray end tags reach here in tokenHTML
		w.out.brk(tabSep)
	case htmlBlocks[n.DataAtom]:
		w.out.brk(w.blockSep(n))
	}
	if htmlPreformatted[n.DataAtom] {
		w.pre = max(w.pre-1, 0)
	}
}

// blockSep is the break around block n: inside a table cell, blocks other
// than a nested table's rows yield to the cell's tab, as paragraphs do in
// DOCX and ODT tables. A layout table holding a whole page keeps its lines.
func (w *htmlWalker) blockSep(n *html.Node) sep {
	switch n.DataAtom {
	case atom.Tr, atom.Table, atom.Tbody, atom.Thead, atom.Tfoot:
		return lineSep
	}
	return paragraphSep(w.cells > 0)
}

// tokenHTML is walkHTML for documents the parser refuses: it reads the
// tokens in order and skips a hidden element up to its end tag, counting
// elements of the same name nested in it. An unclosed hidden element hides
// the rest of the document, as it mostly would in a browser.
func tokenHTML(s string, out *blockText, opt Options) {
	w := htmlWalker{out: out, opt: opt}
	z := html.NewTokenizer(strings.NewReader(s))
	hidden, nested := "", 0         // the name of the hidden element being skipped
	why, chars, dropped := "", 0, 0 // why it is hidden, the characters skipped, dropped elements open in it
	flush := func() {
		if why != "" {
			out.mark(opt.hide(why, chars))
		}
		why, chars, dropped = "", 0, 0
	}
	defer flush()
	for {
		if out.bud != nil {
			out.bud.spend(1)
		}
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		tok := z.Token()
		n := &html.Node{Type: html.ElementNode, Data: tok.Data, DataAtom: tok.DataAtom, Attr: tok.Attr}
		if hidden != "" {
			switch {
			case tt == html.TextToken && dropped == 0:
				chars += hiddenChars(tok.Data)
			case htmlDropped[tok.DataAtom] && tt == html.StartTagToken:
				dropped++
			case htmlDropped[tok.DataAtom] && tt == html.EndTagToken && dropped > 0:
				dropped--
			}
			switch {
			case tok.Data != hidden || tt == html.SelfClosingTagToken:
			case tt == html.StartTagToken:
				nested++
			case tt == html.EndTagToken && nested > 0:
				nested--
			case tt == html.EndTagToken:
				hidden = ""
				flush()
			}
			continue
		}
		switch tt {
		case html.TextToken:
			w.enter(&html.Node{Type: html.TextNode, Data: tok.Data})
		case html.StartTagToken, html.SelfClosingTagToken:
			if htmlVoid[n.DataAtom] || tt == html.SelfClosingTagToken {
				if w.enter(n) {
					w.leave(n)
				}
			} else if !w.enter(n) {
				hidden, nested = tok.Data, 0
				why = htmlHiddenElement(n)
				if htmlHidden(n) || htmlNoteMark(n) {
					why = ""
				}
			}
		case html.EndTagToken:
			if !htmlVoid[n.DataAtom] {
				w.leave(n)
			}
		}
	}
}

// htmlVoid are the elements that have no end tag.
var htmlVoid = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true, atom.Hr: true,
	atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true, atom.Source: true,
	atom.Track: true, atom.Wbr: true,
}

// htmlNoteMark recognises a footnote reference or back-reference: an
// in-page link whose text is a number ("1", "[12]", "*"). LibreOffice,
// Word, Pandoc and wikis all export notes so; the number would otherwise
// stick to the word before it ("ódy.1").
func htmlNoteMark(n *html.Node) bool {
	if n.DataAtom != atom.A || !strings.HasPrefix(htmlAttr(n, "href"), "#") {
		return false
	}
	var text []byte
	for c := n.FirstChild; c != nil && len(text) <= 8; c = htmlNext(c, n) {
		if c.Type == html.TextNode {
			text = append(text, strings.TrimSpace(c.Data)...)
		}
	}
	s := strings.Trim(string(text), "[]()*")
	if len(text) == 0 || len(text) > 8 || (s == "" && len(text) > 3) {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}

// htmlNext is the node after c in document order, within root.
func htmlNext(c, root *html.Node) *html.Node {
	if c.FirstChild != nil {
		return c.FirstChild
	}
	for c != root && c.NextSibling == nil {
		c = c.Parent
	}
	if c == root {
		return nil
	}
	return c.NextSibling
}

func htmlAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// htmlHidden tells whether an element and its content are not the page's
// text: never text (htmlDropped), or boilerplate. Elements the page hides
// from its reader are htmlHiddenElement's.
func htmlHidden(n *html.Node) bool {
	if htmlDropped[n.DataAtom] {
		return true
	}
	if n.DataAtom == atom.Div {
		// LibreOffice exports the page header and footer so; they repeat
		// on every page, and DOCX and ODT leave them out too.
		if t := htmlAttr(n, "title"); t == "header" || t == "footer" {
			return true
		}
	}
	return false
}

// sep is a break owed between two pieces of text. Breaks only come into
// being when text follows, and a stronger break absorbs weaker ones, so
// empty paragraphs and cells leave no blank lines or runs of tabs, and
// nothing trails the last word.
type sep uint8

const (
	noSep       sep = iota
	spaceSep        // words of one line
	cellLineSep     // paragraphs inside a table cell: a line break that yields to the cell's tab
	tabSep          // table cells
	lineSep         // paragraphs, table rows, block elements
)

// paragraphSep is the break a paragraph owes at its end: a line, or inside
// a table cell one that the cell's end turns into a tab, so that a row of
// one-paragraph cells reads "a\tb\tc".
func paragraphSep(inCell bool) sep {
	if inCell {
		return cellLineSep
	}
	return lineSep
}

// blockText assembles the text of a structured document (HTML, DOCX, ODT,
// RTF) from content and structure events: text, and breaks that paragraphs,
// cells and rows owe. It lives here because HTML needs all of it; the
// others use it so that all formats lay out paragraphs and tables alike.
type blockText struct {
	bud     *budget // counts the text written (Limits.MaxTextBytes); nil: unbounded
	b       strings.Builder
	pending sep
	last    byte // the last byte written, 0 before any
}

// brk owes a break before the next text.
func (t *blockText) brk(s sep) { t.pending = max(t.pending, s) }

// text writes s literally, after any break owed.
func (t *blockText) text(s string) {
	if s == "" {
		return
	}
	if t.bud != nil {
		t.bud.textBytes(len(s))
	}
	if p := t.pending; p != noSep {
		t.pending = noSep
		// A break right after a line break (or a space after a tab or
		// space) would only add an empty line or trailing blank.
		if t.last != 0 && t.last != '\n' && !(p == spaceSep && (t.last == '\t' || t.last == ' ')) {
			t.b.WriteByte(" \n\t\n"[p-1])
		}
	}
	t.b.WriteString(s)
	t.last = s[len(s)-1]
}

// mark writes a hidden-text mark (Options.hide) where the text stands,
// before any break owed: it is no text, so it neither pays the break nor
// counts as the last byte.
func (t *blockText) mark(m string) { t.b.WriteString(m) }

// tab writes a tab character (DOCX w:tab, ODT text:tab, RTF \tab) unless
// it would start a line or a cell: there it is indentation, or the gap
// after a footnote's number, and not a separator between words.
func (t *blockText) tab() {
	if t.last == 0 || t.last == '\n' || t.pending > spaceSep {
		return
	}
	t.text("\t")
}

// flow writes s with each run of whitespace collapsed into a space owed, as
// HTML and ODF lay out text: the space between two words survives, spaces
// at the start or end of a line vanish.
func (t *blockText) flow(s string) {
	for s != "" {
		i := strings.IndexAny(s, " \t\n\r\f")
		if i < 0 {
			t.text(s)
			return
		}
		t.text(s[:i])
		t.brk(spaceSep)
		s = strings.TrimLeft(s[i:], " \t\n\r\f")
	}
}

func (t *blockText) String() string { return t.b.String() }
