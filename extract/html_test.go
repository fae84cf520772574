package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// parseWith runs parser p on content and normalises its text as Text
// does. Tests call parsers directly rather than through the parsers table,
// which other tests replace entries of.
func parseWith(t *testing.T, p parser, content []byte) string {
	t.Helper()
	text, err := p(content, Options{})
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	text, _ = normalize(text)
	return text
}

// wantErrorKind checks that err is an *Error of kind k whose reason
// contains reason.
func wantErrorKind(t *testing.T, err error, k Kind, reason string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Kind != k {
		t.Fatalf("got error %v (%T), want an *Error of kind %v", err, err, k)
	}
	if !strings.Contains(e.Reason, reason) {
		t.Errorf("reason %q does not contain %q", e.Reason, reason)
	}
}

// testFixtures compares the text of the fixtures matching pattern (in
// testdata, made by real tools; see scripts/make-extract-fixtures.sh) with
// the source text they were made from, word for word. The quality test
// measures F1 over all formats; this one insists on the exact words, which
// LibreOffice's DOCX, ODT, RTF and HTML allow.
func testFixtures(t *testing.T, p parser, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	if len(files) == 0 {
		t.Skipf("no fixtures %s", pattern)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			content, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src, _, _ := strings.Cut(filepath.Base(file), ".")
			want, err := os.ReadFile(filepath.Join("testdata", "src", src+".txt"))
			if err != nil {
				t.Skipf("no source text: %v", err)
			}
			got := strings.Fields(parseWith(t, p, content))
			w := strings.Fields(string(want))
			for i := range min(len(got), len(w)) {
				if got[i] != w[i] {
					t.Fatalf("word %d: got %q, want %q", i, strings.Join(got[i:min(i+6, len(got))], " "), strings.Join(w[i:min(i+6, len(w))], " "))
				}
			}
			if len(got) != len(w) {
				t.Fatalf("got %d words, want %d", len(got), len(w))
			}
		})
	}
}

// fuzzOptions bound what one fuzz input may cost.
var fuzzOptions = Options{Timeout: 10 * time.Second, MaxUnzipped: 32 << 20, MaxZipEntries: 1000}

// fuzzParser checks the contract of a parser on arbitrary input: it
// returns within the time limit, does not panic (Text would hide a panic
// as ErrCorrupt, so the parser is also called directly), fails only with an
// *Error, returns valid UTF-8 no longer than maxOut bytes; and Text fails
// only with an *Error, never a timeout.
func fuzzParser(t *testing.T, p parser, data []byte, filename string, maxOut int) {
	type result struct {
		text     string
		err      error
		panicked any
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			r.panicked = recover()
			done <- r
		}()
		r.text, r.err = p(data, fuzzOptions)
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(fuzzOptions.Timeout):
		t.Fatalf("parser still running after %s", fuzzOptions.Timeout)
	}
	if r.panicked != nil {
		t.Fatalf("parser panicked: %v", r.panicked)
	}
	var e *Error
	if r.err != nil && !errors.As(r.err, &e) {
		t.Fatalf("error %v is a %T, not an *Error", r.err, r.err)
	}
	if !utf8.ValidString(r.text) {
		t.Fatalf("invalid UTF-8 in %q", r.text)
	}
	if len(r.text) > maxOut {
		t.Fatalf("%d bytes of text from %d bytes of input", len(r.text), len(data))
	}
	if _, err := Text(data, filename, "", fuzzOptions); err != nil {
		if !errors.As(err, &e) || e.Kind == ErrTimeout {
			t.Fatalf("Text: %v (%T)", err, err)
		}
	}
}

func TestHTML_Rules(t *testing.T) {
	cases := []struct{ name, html, want string }{
		{"blocks are lines", "<h1>Title</h1><p>One <b>bold</b> word.</p><div>Two</div><ul><li>a</li><li>b</li></ul>",
			"Title\nOne bold word.\nTwo\na\nb"},
		{"whitespace collapses", "<p>  many\n\t spaces   here  </p>\n\n<p>\nnext</p>", "many spaces here\nnext"},
		{"inline elements do not split words", "<p>un<i>believ</i>able</p>", "unbelievable"},
		{"br", "<p>line one<br>line two<br/></p><p>three</p>", "line one\nline two\nthree"},
		{"pre keeps whitespace", "<p>x</p><pre>  a   b\n\tc</pre><p>y</p>", "x\n  a   b\n\tc\ny"},
		{"table cells are tabs", "<table><tr><th>H1</th><th>H2</th></tr><tr><td><p>a</p></td><td>b</td></tr></table>",
			"H1\tH2\na\tb"},
		{"paragraphs in a cell", "<table><tr><td><p>p1</p><p>p2</p></td><td>c2</td></tr></table>", "p1\np2\tc2"},
		{"script style and friends dropped",
			"<html><head><title>Site title</title><style>p{}</style><script>var x = 1;</script></head>" +
				"<body><script>alert(1)</script><noscript>enable js</noscript><template><p>tpl</p></template>" +
				"<p>visible</p><svg><text>svg text</text></svg><select><option>opt</option></select></body></html>",
			"visible"},
		{"hidden elements dropped",
			`<p>shown</p><p hidden>attr</p><div style="display: none">css</div><span style="VISIBILITY:hidden">vis</span><p>end</p>`,
			"shown\nend"},
		{"entities decoded", "<p>&lt;tag&gt; &amp; &eacute;&#269;&#x159; &nbsp;x</p>", "<tag> & éčř \u00a0x"},
		{"comments dropped", "<p>a<!-- secret -->b</p>", "ab"},
		{"note marks dropped", `<p>word.<a href="#fn1"><sup>1</sup></a> Next [<a href="#c">12</a>]</p>` +
			`<p><a href="#ref1">1</a> The note. <a href="http://x/1">1</a></p>`,
			"word. Next []\nThe note. 1"},
		{"libreoffice header and footer", `<div title="header"><p>Running head</p></div><p>Body</p><div title="footer"><p>Page</p></div>`,
			"Body"},
		{"sloppy markup", "<p>one<p>two<li>three<table><td>c1<td>c2</table>four", "one\ntwo\nthree\nc1\tc2\nfour"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseWith(t, parseHTML, []byte(c.html)); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestHTML_Charsets(t *testing.T) {
	const czech = "Příliš žluťoučký kůň úpěl ďábelské ódy."
	enc := func(cm *charmap.Charmap, s string) []byte {
		b, err := cm.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	page := func(head string) string {
		return "<html><head>" + head + "</head><body><p>" + czech + "</p></body></html>"
	}
	utf16 := func(s string) []byte {
		b, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(s))
		return b
	}
	cases := []struct {
		name string
		raw  []byte
	}{
		{"utf-8", []byte(page(`<meta charset="utf-8">`))},
		{"utf-8 under a lying meta", []byte(page(`<meta charset="iso-8859-2">`))},
		{"meta charset windows-1250", enc(charmap.Windows1250, page(`<meta charset="windows-1250">`))},
		{"meta http-equiv iso-8859-2", enc(charmap.ISO8859_2, page(`<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-2">`))},
		{"no meta, windows-1250 detected", enc(charmap.Windows1250, page(""))},
		{"no meta, iso-8859-2 detected", enc(charmap.ISO8859_2, page(""))},
		{"utf-16 with bom", utf16(page(""))},
		{"utf-8 bom", append([]byte("\xEF\xBB\xBF"), page("")...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseWith(t, parseHTML, c.raw); got != czech {
				t.Errorf("got %q, want %q", got, czech)
			}
		})
	}
}

// TestHTML_DeepNesting: the HTML5 parser refuses elements nested over 512
// deep; tokenHTML reads such files with the same rules.
func TestHTML_DeepNesting(t *testing.T) {
	const depth = 20000
	deep := strings.Repeat("<div>", depth) + "deep" + strings.Repeat("</div>", depth)
	doc := "<html><head><title>t</title><style>s</style></head><body>" +
		"<p>one <b>two</b><br>three</p><div hidden><div>x</div>y</div><img src=a><hr>" +
		"<table><tr><td>a</td><td>b</td></tr></table><pre> p  q </pre>" + deep + "</body></html>"
	if got, want := parseWith(t, parseHTML, []byte(doc)), "one two\nthree\na\tb\n p  q \ndeep"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestHTML_Fixtures(t *testing.T) { testFixtures(t, parseHTML, "*.html") }

func TestHTML_ThroughText(t *testing.T) {
	got, err := Text([]byte("<!DOCTYPE html><title>t</title><p>Hello <em>world</em>"), "a.html", "", Options{})
	if err != nil || got != "Hello world" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestBlockText(t *testing.T) {
	var b blockText
	b.brk(lineSep) // nothing before the first text
	b.tab()        // nor an indenting tab
	b.flow("  one   two ")
	b.brk(spaceSep)
	b.text("three")
	b.brk(cellLineSep)
	b.brk(tabSep) // the cell's end absorbs its paragraph's
	b.text("four")
	b.text("\n")
	b.brk(lineSep) // a break right after a line break adds no blank line
	b.tab()
	b.text("five")
	b.tab()
	b.text("six")
	b.brk(lineSep) // nothing after the last text
	if got, want := b.String(), "one two three\tfour\nfive\tsix"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzHTML(f *testing.F) {
	for _, s := range []string{
		"<!DOCTYPE html><html><head><title>x</title></head><body><p>Hello</p></body></html>",
		"<table><tr><td>a<td>b</table><pre> x </pre><br>",
		"<p hidden>x</p><div style='display:none'>y</div><script>z</script>",
		`<meta charset="windows-1250"><p>` + "\x9a\xe8",
		"<a href=#1>1</a><svg><p>x</svg>",
		"\xff\xfe<\x00p\x00>\x00",
		strings.Repeat("<div>", 100),
	} {
		f.Add([]byte(s))
	}
	if files, _ := filepath.Glob("testdata/*.html"); len(files) > 0 {
		b, _ := os.ReadFile(files[0])
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParser(t, parseHTML, data, "f.html", 3*len(data)+16)
	})
}
