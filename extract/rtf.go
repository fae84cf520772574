package extract

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

func init() { parsers[FormatRTF] = parseRTF }

// parseRTF reads the text of an RTF file: the body, then the footnotes.
//
// RTF is a stream of text, control words (\par, \u268, \fcharset238),
// control symbols (\'e8, \~) and groups in braces. A group that starts
// with a destination (\fonttbl, \pict, \header, or any \* destination a
// reader does not know) holds something other than body text, and is
// skipped. Characters outside ASCII arrive as \uN with a fallback to skip,
// or as \'hh bytes in the code page of the current font or the document.
// Headers and footers are skipped for the reason DOCX's are; tracked
// deletions (\deleted) too. Text a reader does not see is left out and
// flagged (rtfHiddenReason): hidden text (\v), a font of 1 pt or less
// (\fs1, \fs2) and text whose colour (\cf, an entry of the colour table)
// is within nearColorDiff of what lies under it (\highlight or \cb, else
// the white page). Inside a table row whose cells are shaded (\clcbpat)
// colour is not judged: which cell is which is not followed.
//
// The reader is one pass over the bytes with a bounded group stack, so its
// time is linear and its memory follows the text, whatever the input:
// millions of nested braces, endless control words or hex picture data.
func parseRTF(content []byte, opt Options) (string, error) {
	content = bytes.TrimPrefix(content, bomUTF8)
	if bytes.HasPrefix(content, bomUTF16LE) || bytes.HasPrefix(content, bomUTF16BE) {
		s, err := decodePlain(content) // RTF is ASCII, but some tools save it as UTF-16
		if err != nil {
			return "", err
		}
		content = []byte(s)
	}
	if !bytes.HasPrefix(bytes.TrimLeft(content, " \t\r\n"), []byte(`{\rtf`)) {
		return "", newError(ErrCorrupt, `the %s file is damaged: it does not start with "{\rtf"`, FormatRTF.Name())
	}
	bud := budgetOf(opt)
	r := rtfReader{b: content, ansiCP: 1252, fontCP: map[int]int{}, g: rtfGroup{uc: 1, font: -1}, bud: bud, opt: opt}
	r.body.bud, r.notes.bud = bud, bud
	r.run()
	out := r.body.String()
	if n := r.notes.String(); n != "" {
		r.body.brk(lineSep)
		r.body.text(n)
		out = r.body.String()
	}
	return out, nil
}

// rtfGroup is the state a group inherits from its parent and loses at its
// closing brace.
type rtfGroup struct {
	skip    bool // inside an ignored destination
	hidden  bool // \v: hidden text
	deleted bool // \deleted: a tracked deletion
	note    bool // inside a \footnote
	fonttbl bool // inside the font table
	intbl   bool // the paragraph is in a table
	uc      int  // \ucN: fallback characters after each \uN
	font    int  // \fN, -1 for the default font

	colortbl bool // inside the colour table
	cf       int  // \cfN: the text's colour, an index of the colour table; 0: automatic
	bg       int  // \highlightN or \cbN: what lies under the text; 0: nothing
	fs       int  // \fsN: font size in half-points; 0: unset (12 pt)
}

// maxRTFColors bounds the colour table.
const maxRTFColors = 10000

// maxRTFDepth bounds the group stack. Deeper groups share the state of the
// deepest one kept: real documents nest a few dozen levels.
const maxRTFDepth = 1000

// maxRTFFonts bounds the font table, which only matters for code pages.
const maxRTFFonts = 10000

type rtfReader struct {
	b           []byte
	i           int
	g           rtfGroup
	stack       []rtfGroup
	overflow    int // groups opened past maxRTFDepth
	body, notes blockText
	ansiCP      int         // \ansicpgN, the document's code page
	deff        int         // \deffN, the default font
	fontCP      map[int]int // font number -> code page, from \fcharset and \cpg
	fontDef     int         // the font being defined in the font table
	fallback    int         // characters of a \uN's fallback still to skip
	groupStart  bool        // nothing but "{" (and "\*") read in this group yet
	starred     bool        // "\*" just read: the destination may be ignored
	highSurr    rune        // the first half of a UTF-16 surrogate pair from \uN
	bud         *budget

	opt       Options
	colors    []rtfColor // the colour table; entry 0 is "automatic"
	rowShaded bool       // the current row definition shades cells (\clcbpat)
	inHidden  string     // the reason of the hidden run being read, "" after visible text
}

// rtfColor is an entry of the colour table; set is false for an entry
// that gives no colour ("automatic").
type rtfColor struct {
	c   rgb
	set bool
}

func (r *rtfReader) run() {
	for r.i < len(r.b) {
		r.bud.spend(1)
		switch c := r.b[r.i]; c {
		case '{':
			r.i++
			r.push()
			r.groupStart, r.starred, r.fallback = true, false, 0
		case '}':
			r.i++
			r.pop()
			r.groupStart, r.starred, r.fallback = false, false, 0
		case '\\':
			r.control()
		case '\r', '\n':
			r.i++ // line breaks in the file are not text
		default:
			r.groupStart, r.starred = false, false
			if r.skipFallback() {
				r.i++
				continue
			}
			if c >= 0x80 {
				// Unescaped 8-bit text, as some writers emit: in the code page.
				r.i++
				r.emitByte(c)
				continue
			}
			j := r.i
			for j < len(r.b) && r.b[j] < 0x80 && r.b[j] != '{' && r.b[j] != '}' && r.b[j] != '\\' && r.b[j] != '\r' && r.b[j] != '\n' {
				j++
			}
			if r.g.colortbl {
				r.colorText(r.b[r.i:j])
			}
			r.emit(string(r.b[r.i:j]))
			r.i = j
		}
	}
}

func (r *rtfReader) push() {
	if len(r.stack) >= maxRTFDepth {
		r.overflow++
		return
	}
	r.stack = append(r.stack, r.g)
}

func (r *rtfReader) pop() {
	switch {
	case r.overflow > 0:
		r.overflow--
	case len(r.stack) > 0:
		r.g = r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
	}
}

// skipFallback consumes one character of a \uN's fallback, if one is owed.
func (r *rtfReader) skipFallback() bool {
	if r.fallback > 0 {
		r.fallback--
		return true
	}
	return false
}

// control reads a control word or symbol at r.i (a backslash).
func (r *rtfReader) control() {
	i := r.i + 1
	if i >= len(r.b) {
		r.i = i
		return
	}
	if c := r.b[i]; !isASCIILetter(c) {
		r.i = i + 1
		r.symbol(c)
		return
	}
	j := i
	for j < len(r.b) && isASCIILetter(r.b[j]) {
		j++
	}
	name := ""
	if j-i <= 32 { // the spec's limit; longer is garbage, read as unknown
		name = string(r.b[i:j])
	}
	param, hasParam := 0, false
	if j < len(r.b) && (r.b[j] == '-' || isASCIIDigit(r.b[j])) {
		neg := r.b[j] == '-'
		if neg {
			j++
		}
		for j < len(r.b) && isASCIIDigit(r.b[j]) {
			hasParam = true
			if param < 1<<30 {
				param = param*10 + int(r.b[j]-'0')
			}
			j++
		}
		if neg {
			param = -param
		}
	}
	if j < len(r.b) && r.b[j] == ' ' {
		j++ // the delimiter
	}
	r.i = j
	r.word(name, param, hasParam)
}

// symbol handles a control symbol: a backslash and one non-letter.
func (r *rtfReader) symbol(c byte) {
	if c == '*' {
		r.starred = true // groupStart stays: "{\*\dest" is still a group start
		return
	}
	r.groupStart, r.starred = false, false
	if c == '\'' {
		v, ok := 0, r.i+2 <= len(r.b)
		for k := 0; ok && k < 2; k++ {
			d, isHex := hexDigit(r.b[r.i+k])
			v, ok = v<<4|d, isHex
		}
		if !ok {
			return
		}
		r.i += 2
		if !r.skipFallback() {
			r.emitByte(byte(v))
		}
		return
	}
	if r.skipFallback() {
		return
	}
	switch c {
	case '\\', '{', '}':
		r.emit(string(c))
	case '~':
		r.emit("\u00a0")
	case '_':
		r.emit("-") // a non-breaking hyphen joins words as "-" does
	case '\r', '\n':
		r.paragraph()
	case '\t':
		if r.visible() {
			r.out().tab()
		}
	}
	// "\-" (optional hyphen), "\|", "\:" and the rest carry no text.
}

// word handles a control word.
func (r *rtfReader) word(name string, param int, hasParam bool) {
	groupStart, starred := r.groupStart, r.starred
	r.groupStart, r.starred = false, false
	if name == "bin" {
		// Binary data follows: skip it unread, braces and all.
		r.i += min(max(param, 0), len(r.b)-r.i)
		return
	}
	if groupStart && (starred || rtfDestinations[name]) {
		switch name {
		case "footnote":
			r.g.note = true
		case "fonttbl":
			r.g.fonttbl, r.g.skip = true, true
		case "colortbl":
			r.g.colortbl, r.g.skip = true, true
			if len(r.colors) == 0 {
				r.colors = []rtfColor{{}}
			}
		default:
			r.g.skip = true
		}
		return
	}
	if name != "u" && r.skipFallback() {
		return
	}
	on := !hasParam || param != 0
	switch name {
	case "par", "sect", "page":
		r.paragraph()
	case "row", "nestrow":
		r.brk(lineSep)
	case "cell", "nestcell":
		r.brk(tabSep)
	case "line":
		r.emit("\n")
	case "tab":
		if r.visible() {
			r.out().tab()
		}
	case "intbl":
		r.g.intbl = true
	case "pard":
		r.g.intbl = false
	case "plain":
		r.g.font, r.g.hidden, r.g.deleted = -1, false, false
		r.g.cf, r.g.bg, r.g.fs = 0, 0, 0
	case "v":
		r.g.hidden = on
	case "cf":
		r.g.cf = max(param, 0)
	case "cb", "highlight", "chcbpat":
		r.g.bg = max(param, 0)
	case "fs":
		r.g.fs = max(param, 0)
	case "red", "green", "blue":
		r.colorWord(name, param)
	case "trowd":
		r.rowShaded = false
	case "clcbpat", "clcbpatraw":
		if param != 0 {
			r.rowShaded = true
		}
	case "deleted":
		r.g.deleted = on
	case "uc":
		r.g.uc = min(max(param, 0), 16)
	case "u":
		r.unicode(param)
	case "ansicpg":
		r.ansiCP = param
	case "ansi":
		r.ansiCP = 1252
	case "mac":
		r.ansiCP = 10000
	case "pc":
		r.ansiCP = 437
	case "pca":
		r.ansiCP = 850
	case "deff":
		r.deff = param
	case "f":
		if r.g.fonttbl {
			r.fontDef = param
		} else {
			r.g.font = param
		}
	case "fcharset":
		if cp := rtfCharsetCP[param]; r.g.fonttbl && cp != 0 && len(r.fontCP) < maxRTFFonts {
			r.fontCP[r.fontDef] = cp
		}
	case "cpg":
		if r.g.fonttbl && len(r.fontCP) < maxRTFFonts {
			r.fontCP[r.fontDef] = param
		}
	default:
		if s, ok := rtfCharWords[name]; ok {
			r.emit(s)
		}
	}
}

// unicode handles \uN: a UTF-16 code unit as a signed 16-bit number,
// followed by \ucN fallback characters for readers without Unicode.
func (r *rtfReader) unicode(param int) {
	r.fallback = r.g.uc
	u := rune(param)
	if u < 0 {
		u += 0x10000
	}
	switch {
	case u >= 0xD800 && u < 0xDC00:
		r.highSurr = u
		return
	case u >= 0xDC00 && u < 0xE000 && r.highSurr != 0:
		u = 0x10000 + (r.highSurr-0xD800)<<10 + (u - 0xDC00)
	case !utf8.ValidRune(u):
		u = utf8.RuneError
	}
	r.highSurr = 0
	r.emit(string(u))
}

func (r *rtfReader) paragraph() {
	r.brk(paragraphSep(r.g.intbl))
}

// visible tells whether text in the current group is part of the document
// and seen.
func (r *rtfReader) visible() bool { return r.inDocument() && r.hiddenReason() == "" }

// inDocument tells whether text in the current group is part of the
// document, seen or not.
func (r *rtfReader) inDocument() bool { return !r.g.skip && !r.g.deleted }

// hiddenReason says why text in the current group cannot be seen, or "".
func (r *rtfReader) hiddenReason() string {
	switch {
	case r.g.hidden:
		return `hidden text (\v)`
	case r.g.fs > 0 && r.g.fs <= 2:
		return "tiny text (1 pt or less)"
	}
	fg, ok := r.color(r.g.cf)
	if !ok {
		return ""
	}
	bg, ok := r.color(r.g.bg)
	if !ok || r.g.bg == 0 { // \cb0, \highlight0: nothing under the text
		if r.g.intbl && r.rowShaded {
			return ""
		}
		bg = white
	}
	if fg.near(bg) {
		return "text in its background's colour"
	}
	return ""
}

// color returns entry i of the colour table, if it gives a colour.
func (r *rtfReader) color(i int) (rgb, bool) {
	if i < 0 || i >= len(r.colors) || !r.colors[i].set {
		return rgb{}, false
	}
	return r.colors[i].c, true
}

// colorWord reads \redN, \greenN or \blueN into the colour table's last entry.
func (r *rtfReader) colorWord(name string, v int) {
	if !r.g.colortbl || len(r.colors) == 0 {
		return
	}
	c := &r.colors[len(r.colors)-1]
	b := uint8(min(max(v, 0), 255))
	switch name {
	case "red":
		c.c.r = b
	case "green":
		c.c.g = b
	case "blue":
		c.c.b = b
	}
	c.set = true
}

// colorText reads the text of the colour table: each ";" ends an entry.
func (r *rtfReader) colorText(b []byte) {
	for _, c := range b {
		if c == ';' && len(r.colors) < maxRTFColors {
			r.colors = append(r.colors, rtfColor{})
		}
	}
}

func (r *rtfReader) out() *blockText {
	if r.g.note {
		return &r.notes
	}
	return &r.body
}

func (r *rtfReader) emit(s string) {
	if !r.inDocument() {
		return
	}
	why := r.hiddenReason()
	switch {
	case why == "":
		r.inHidden = ""
		r.out().text(s)
	case why == r.inHidden:
		r.opt.hideMore(why, hiddenChars(s))
	default:
		if n := hiddenChars(s); n > 0 {
			r.out().mark(r.opt.hide(why, n))
			r.inHidden = why
		}
	}
}

func (r *rtfReader) brk(s sep) {
	if r.visible() {
		r.out().brk(s)
	}
}

// emitByte writes a byte of text in the code page of the current font, or
// the document's. Multi-byte Asian code pages are not supported; their
// bytes are read as Windows-1252 (writers add \uN for them anyway).
func (r *rtfReader) emitByte(c byte) {
	if !r.inDocument() {
		return
	}
	font := r.g.font
	if font < 0 {
		font = r.deff
	}
	cp, ok := r.fontCP[font]
	if !ok {
		cp = r.ansiCP
	}
	cm := rtfCodePages[cp]
	if cm == nil {
		cm = charmap.Windows1252
	}
	r.emit(string(cm.DecodeByte(c)))
}

// rtfDestinations are the destinations whose groups hold no body text:
// tables of fonts, colours, styles, lists and revisions, document info,
// pictures and objects' data, headers and footers, field instructions,
// bookmarks, comments, index and table-of-contents entries, the list
// numbers old readers print (\listtext, \pntext), shape properties.
var rtfDestinations = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "info": true, "pict": true,
	"header": true, "headerl": true, "headerr": true, "headerf": true,
	"footer": true, "footerl": true, "footerr": true, "footerf": true,
	"listtable": true, "listoverridetable": true, "revtbl": true, "rsidtbl": true, "filetbl": true,
	"pntext": true, "pntxta": true, "pntxtb": true, "listtext": true, "fldinst": true, "datafield": true,
	"objdata": true, "objclass": true, "objname": true, "bkmkstart": true, "bkmkend": true,
	"annotation": true, "atnid": true, "atnauthor": true, "atntime": true, "atnref": true, "atndate": true,
	"xe": true, "tc": true, "txe": true, "author": true, "operator": true, "title": true, "subject": true,
	"keywords": true, "comment": true, "doccomm": true, "creatim": true, "revtim": true, "printim": true,
	"buptim": true, "template": true, "nonshppict": true, "shppict": true, "sp": true, "sn": true, "sv": true,
	"ftnsep": true, "ftnsepc": true, "ftncn": true, "aftnsep": true, "aftnsepc": true, "aftncn": true,
	"themedata": true, "colorschememapping": true, "latentstyles": true, "datastore": true,
	"xmlnstbl": true, "generator": true, "userprops": true, "pgdsctbl": true, "private": true,
	"footnote": true, // not skipped: its text goes to the notes
}

// rtfCharWords are control words that stand for a character.
var rtfCharWords = map[string]string{
	"emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022",
	"lquote": "\u2018", "rquote": "\u2019", "ldblquote": "\u201c", "rdblquote": "\u201d",
	"emspace": " ", "enspace": " ", "qmspace": " ",
}

// rtfCharsetCP maps \fcharsetN to a Windows code page; 0 (ANSI) and 1
// (default) mean the document's \ansicpg and are absent.
var rtfCharsetCP = map[int]int{
	77: 10000, 161: 1253, 162: 1254, 163: 1258, 177: 1255, 178: 1256,
	186: 1257, 204: 1251, 222: 874, 238: 1250,
}

// rtfCodePages are the single-byte code pages \'hh may be in.
var rtfCodePages = map[int]*charmap.Charmap{
	437: charmap.CodePage437, 850: charmap.CodePage850, 852: charmap.CodePage852,
	866: charmap.CodePage866, 874: charmap.Windows874,
	1250: charmap.Windows1250, 1251: charmap.Windows1251, 1252: charmap.Windows1252,
	1253: charmap.Windows1253, 1254: charmap.Windows1254, 1255: charmap.Windows1255,
	1256: charmap.Windows1256, 1257: charmap.Windows1257, 1258: charmap.Windows1258,
	10000: charmap.Macintosh, 10007: charmap.MacintoshCyrillic,
	28591: charmap.ISO8859_1, 28592: charmap.ISO8859_2,
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isASCIIDigit(c byte) bool  { return c >= '0' && c <= '9' }

func hexDigit(c byte) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10, true
	}
	return 0, false
}
