package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/plagd/plagd/internal/testseed"
)

const (
	czech = "Příliš žluťoučký kůň úpěl ďábelské ódy. Šťastný Ťapka Žofie viděl čtyři řeky.\n" +
		"Tato diplomová práce se zabývá detekcí plagiátů v rozsáhlých archivech závěrečných prací."
	czechShort = "Šťastná žena"
	german     = "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.\n" +
		"Die Prüfungsordnung regelt „Plagiate“ – äußerst ärgerlich für Ökonomen."
	french = "L'élève a présenté sa thèse à côté du château; où être, ça dépend."
	polish = "Zażółć gęślą jaźń. Źdźbło śliwki, łąka i Ślęża."
)

// TestLegacyEncodings round-trips samples through each 8-bit encoding they
// fit in: the detector must return the original text, whatever encoding it
// names (German reads the same in Windows-1250 and Windows-1252).
func TestLegacyEncodings(t *testing.T) {
	cases := []struct {
		name, text string
		enc        *charmap.Charmap
	}{
		{"czech/windows-1250", czech, charmap.Windows1250},
		{"czech/iso-8859-2", czech, charmap.ISO8859_2},
		{"czech-short/windows-1250", czechShort, charmap.Windows1250},
		{"czech-short/iso-8859-2", czechShort, charmap.ISO8859_2},
		{"polish/windows-1250", polish, charmap.Windows1250},
		{"polish/iso-8859-2", polish, charmap.ISO8859_2},
		{"german/windows-1252", german, charmap.Windows1252},
		{"german/windows-1250", german, charmap.Windows1250},
		{"german/iso-8859-2", strings.NewReplacer("„", "\"", "“", "\"", "–", "-").Replace(german), charmap.ISO8859_2},
		{"french/windows-1252", french, charmap.Windows1252},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := c.enc.NewEncoder().String(c.text)
			if err != nil {
				t.Fatalf("sample not encodable in %s: %v", c.enc, err)
			}
			got, err := Text([]byte(raw), "thesis.txt", "text/plain", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.text {
				t.Errorf("decoded as %s:\n got %q\nwant %q", detectLegacy([]byte(raw)), got, c.text)
			}
		})
	}
}

func TestUnicodeEncodingsAndBOMs(t *testing.T) {
	encode := func(e encoding.Encoding, s string) []byte {
		b, err := e.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	text := czech + "\n" + german
	cases := []struct {
		name string
		raw  []byte
	}{
		{"utf-8", []byte(text)},
		{"utf-8 bom", append([]byte("\xEF\xBB\xBF"), text...)},
		{"utf-16le bom", encode(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), text)},
		{"utf-16be bom", encode(unicode.UTF16(unicode.BigEndian, unicode.UseBOM), text)},
		{"utf-16le no bom", encode(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), text)},
		{"utf-16be no bom", encode(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), text)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Text(c.raw, "a.txt", "", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got != text {
				t.Errorf("got %q\nwant %q", got, text)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	// A long line keeps the few stray controls below the binary threshold.
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 10)
	got, err := Text([]byte(long+"a\r\nb\rc\x00d\x01e\tf\fg\x7fh\u00a0i\n\x00\x00"), "a.txt", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := long + "a\nb\ncde\tf\ngh\u00a0i\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	// High bytes only: no control codes, but no language either.
	highOnly := make([]byte, 2048)
	for i := range highOnly {
		highOnly[i] = byte(0xA0 + rng.UintN(96))
	}
	cases := []struct {
		name     string
		content  []byte
		filename string
		opt      Options
		kind     Kind
		reason   string // substring of the reason
	}{
		{"empty", nil, "a.txt", Options{}, ErrEmpty, "the document contains no text"},
		{"whitespace", []byte(" \r\n\t\u00a0\n\x00"), "a.txt", Options{}, ErrEmpty, "no text"},
		{"bom only", []byte("\xEF\xBB\xBF"), "a.txt", Options{}, ErrEmpty, "no text"},
		{"too large", []byte("hello world"), "a.txt", Options{MaxBytes: 5}, ErrTooLarge, "more than the limit of 5 bytes"},
		{"random garbage", garbage, "notes.txt", Options{}, ErrBinary, "binary data, not text: "},
		{"high bytes", highOnly, "notes.txt", Options{}, ErrBinary, "binary data, not text: "},
		{"png named txt", append([]byte("\x89PNG\r\n\x1a\n"), garbage...), "notes.txt", Options{}, ErrBinary, "binary data, not text: PNG image"},
		{"elf", append([]byte("\x7fELF"), garbage...), "a.out", Options{}, ErrBinary, "executable"},
		{"truncated pdf", []byte("%PDF-1.7\n..."), "a.pdf", Options{}, ErrCorrupt, "truncated"},
		{"html without text", []byte("<!DOCTYPE html><p> </p><script>var x = 1</script>"), "a.html", Options{}, ErrEmpty, "no text"},
		{"doc", append(append([]byte{}, oleMagic...), garbage...), "old.doc", Options{}, ErrUnsupported, "Word 97-2003"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, err := Text(c.content, c.filename, "", c.opt)
			if err == nil {
				t.Fatalf("no error, text %q", text)
			}
			if !errors.Is(err, c.kind) {
				t.Fatalf("error %q is not %v", err, c.kind)
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.kind {
				t.Fatalf("error %T %v is not an *Error of kind %v", err, err, c.kind)
			}
			if !strings.Contains(e.Reason, c.reason) {
				t.Errorf("reason %q does not contain %q", e.Reason, c.reason)
			}
			for _, other := range []Kind{ErrEmpty, ErrTooLarge, ErrBinary, ErrUnsupported, ErrCorrupt} {
				if other != c.kind && errors.Is(err, other) {
					t.Errorf("error of kind %v also matches %v", c.kind, other)
				}
			}
		})
	}
}

func TestPanicBecomesCorrupt(t *testing.T) {
	real := parsers[FormatRTF]
	parsers[FormatRTF] = func([]byte, Options) (string, error) { panic("bad table") }
	defer func() { parsers[FormatRTF] = real }()
	_, err := Text([]byte(`{\rtf1 hello}`), "a.rtf", "", Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "RTF") {
		t.Fatalf("got %v, want ErrCorrupt naming RTF", err)
	}
}

func zipOf(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(entries); i += 2 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: entries[i], Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(entries[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDetectFormat(t *testing.T) {
	docx := zipOf(t, "[Content_Types].xml", "<Types/>", "word/document.xml", "<w:document/>")
	odt := zipOf(t, "mimetype", "application/vnd.oasis.opendocument.text", "content.xml", "<office/>")
	ods := zipOf(t, "mimetype", "application/vnd.oasis.opendocument.spreadsheet")
	xlsx := zipOf(t, "[Content_Types].xml", "<Types/>", "xl/workbook.xml", "<w/>")
	plainZip := zipOf(t, "a.txt", "hello")
	utf16html := append([]byte{0xFF, 0xFE}, []byte("<\x00h\x00t\x00m\x00l\x00>\x00")...)
	cases := []struct {
		name, filename, contentType string
		content                     []byte
		want                        Format
	}{
		{"pdf magic beats extension", "thesis.doc", "", []byte("%PDF-1.4\n"), FormatPDF},
		{"pdf after junk when declared", "x.pdf", "", []byte("\r\n%PDF-1.4\n"), FormatPDF},
		{"text mentioning pdf", "x.txt", "", []byte("see %PDF-1.4 spec"), FormatText},
		{"docx by content", "thesis.zip", "", docx, FormatDOCX},
		{"odt by mimetype", "thesis.bin", "", odt, FormatODT},
		{"ods is not text", "sheet.odt", "", ods, FormatBinary},
		{"xlsx is not word", "book.docx", "", xlsx, FormatBinary},
		{"plain zip", "a.zip", "", plainZip, FormatBinary},
		{"broken zip named docx", "a.docx", "", []byte("PK\x03\x04garbage"), FormatDOCX},
		{"rtf", "a.txt", "", []byte(`{\rtf1\ansi hello}`), FormatRTF},
		{"html doctype", "a.txt", "", []byte("\n  <!DOCTYPE html>\n<html>"), FormatHTML},
		{"html tag", "", "", []byte("<HTML><body>"), FormatHTML},
		{"xhtml", "", "", []byte(`<?xml version="1.0"?>` + "\n<html xmlns=\"x\">"), FormatHTML},
		{"html after utf-8 bom", "", "", []byte("\xEF\xBB\xBF<html>"), FormatHTML},
		{"html in utf-16", "", "", utf16html, FormatHTML},
		{"utf-8 bom text", "a.pdf", "application/pdf", []byte("\xEF\xBB\xBFhello"), FormatText},
		{"utf-16 bom text", "a.docx", "", []byte("\xFF\xFEh\x00i\x00"), FormatText},
		{"ole as doc", "a.doc", "", oleMagic, FormatDOC},
		{"ole unnamed", "a.xls", "", oleMagic, FormatBinary},
		{"png", "a.txt", "text/plain", []byte("\x89PNG\r\n\x1a\n...."), FormatBinary},
		{"content type html", "page", "text/html; charset=utf-8", []byte("<p>hello"), FormatHTML},
		{"content type beats extension", "a.txt", "application/rtf", []byte("hello"), FormatRTF},
		{"text/plain defers to extension", "a.html", "text/plain", []byte("<p>hi"), FormatHTML},
		{"extension", "A.HTM", "", []byte("<p>hi"), FormatHTML},
		{"markdown", "readme.md", "", []byte("# hi"), FormatText},
		{"octet-stream", "a.odt", "application/octet-stream", []byte("x"), FormatODT},
		{"unknown defaults to text", "a.c", "", []byte("int main;"), FormatText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := DetectFormat(c.content, c.filename, c.contentType); got != c.want {
				t.Errorf("DetectFormat(%q, %q) = %q, want %q", c.filename, c.contentType, got, c.want)
			}
		})
	}
}

func TestContentTypeAndExtensions(t *testing.T) {
	for name, want := range map[string]string{
		"a.txt":  "text/plain",
		"a.md":   "text/markdown",
		"A.PDF":  "application/pdf",
		"x.docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		"x.htm":  "text/html",
		"x.png":  "image/png",
		"noext":  "",
	} {
		if got := ContentType(name); got != want {
			t.Errorf("ContentType(%q) = %q, want %q", name, got, want)
		}
	}
	want := ".txt .text .md .pdf .docx .odt .oth .ott .odm .rtf .html .htm"
	if got := strings.Join(Extensions(), " "); got != want {
		t.Errorf("Extensions() = %q, want %q", got, want)
	}
}

func TestText_Timeout(t *testing.T) {
	slow := Format("slow-test")
	parsers[slow] = func([]byte, Options) (string, error) {
		time.Sleep(2 * time.Second)
		return "late", nil
	}
	defer delete(parsers, slow)
	start := time.Now()
	_, _, err := runParser(context.Background(), parsers[slow], slow, []byte("x"), Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
	if time.Since(start) > time.Second {
		t.Fatalf("timeout took %s", time.Since(start))
	}
}

// normalizeRunes is normalize's definition, rune by rune: what the fast
// version, which copies unchanged runs whole, must give.
func normalizeRunes(s string) (string, []int) {
	var b strings.Builder
	var marks []int
	for i, r := range s {
		switch {
		case r == hiddenMark:
			marks = append(marks, b.Len())
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			b.WriteByte('\n')
		case r == '\n', r == '\t':
			b.WriteRune(r)
		case r == '\f', r == '\v', r == '\u2028', r == '\u2029', r == '\u0085':
			b.WriteByte('\n')
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == '\ufeff':
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), marks
}

func TestNormalizeEqualsRuneByRune(t *testing.T) {
	// Strings built from pieces that each take another branch, in random
	// order and runs, with invalid and truncated UTF-8 among them.
	pieces := []string{"a", "word ", "\r", "\n", "\r\n", "\t", "\x00", "\x1f", "\x7f", "\f", "\v",
		"\u2028", "\u2029", "\u0085", "\u0080", "\u009f", "\u00a0", "é", "\ufeff", string(hiddenMark),
		"\uFFFD", "\xff", "\xe2\x80", "\xc3", "日本", "\U0001F600", "ﬁ", "\u200b"}
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 7))
	for n := range 20000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := sb.String()
		got, gotMarks := normalize(s)
		want, wantMarks := normalizeRunes(s)
		if got != want || !slices.Equal(gotMarks, wantMarks) {
			t.Fatalf("case %d, normalize(%q) = %q %v, want %q %v", n, s, got, gotMarks, want, wantMarks)
		}
	}
	// A clean text comes back as it is.
	clean := "Plain text,\tin lines\nand accents: é, 日本.\n"
	if got, _ := normalize(clean); got != clean {
		t.Errorf("normalize(%q) = %q", clean, got)
	}
}

// BenchmarkNormalize: the fast normalize and its rune-by-rune definition
// on 1 MB of prose with a few accents and a CRLF line end per paragraph.
func BenchmarkNormalize(b *testing.B) {
	para := strings.Repeat("The committee reviewed the thesis and its sources; naïve copies were found. ", 12) + "\r\n"
	text := strings.Repeat(para, (1<<20)/len(para))
	for _, f := range []struct {
		name string
		fn   func(string) (string, []int)
	}{{"fast", normalize}, {"runes", normalizeRunes}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				f.fn(text)
			}
		})
	}
}
