package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRTF_Rules(t *testing.T) {
	cases := []struct{ name, rtf, want string }{
		{"paragraphs and lines", `{\rtf1\ansi First\par Second\line third.\par}`, "First\nSecond\nthird."},
		{"tab and escapes", `{\rtf1 a\tab b \{braces\} back\\slash\~nbsp\_hyph\-en}`, "a\tb {braces} back\\slash\u00a0nbsp-hyphen"},
		{"control word delimiter", `{\rtf1 \b bold\b0  and\i  italic}`, "bold and italic"},
		{"line breaks in the file are not text", "{\\rtf1 one\r\ntwo\\\nthree}", "onetwo\nthree"},
		{"special characters", `{\rtf1 \ldblquote q\rdblquote  \lquote s\rquote  a\endash b\emdash c\bullet}`, "\u201cq\u201d \u2018s\u2019 a\u2013b\u2014c\u2022"},
		{"hex escapes in windows-1250", `{\rtf1\ansi\ansicpg1250 P\'f8\'edli\'9a \'9elu\'9dou\'e8k\'fd}`, "Příliš žluťoučký"},
		{"hex escapes in windows-1252", `{\rtf1\ansi\ansicpg1252 Gr\'fc\'dfe \'e0 la fa\'e7on}`, "Grüße à la façon"},
		{"font charset beats ansicpg",
			`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fnil\fcharset0 Arial;}{\f1\fnil\fcharset238 Arial CE;}}` +
				`\f0 Gr\'fc\'dfe {\f1 \'e8esky}\par\plain\f1 \'9akola}`,
			"Grüße česky\nškola"},
		{"unicode with one fallback", `{\rtf1 P\u345\'3f\u237?li\u353\'9a}`, "Příliš"},
		{"unicode without fallback", `{\rtf1\uc0 \u269\u345 x}`, "čřx"},
		{"unicode with two fallback bytes", `{\rtf1\uc2 \u8364\'80\'80 euro}`, "€ euro"},
		{"uc is scoped to its group", `{\rtf1{\uc2 \u269 ab}\u269 ab}`, "ččb"},
		{"negative unicode and surrogates", `{\rtf1\uc0 \u-3913 \u-10179\u-8704 !}`, "\uf0b7\U0001F600!"},
		{"fallback ends at a group", `{\rtf1\uc3 \u269{x}y}`, "čxy"},
		{"ignored destinations",
			`{\rtf1{\fonttbl{\f0 Font;}}{\colortbl;\red0\green0\blue0;}{\stylesheet{\s1 Heading;}}{\info{\title TITLE}{\author AUTHOR}}` +
				`{\*\generator Writer;}{\*\unknowndest secret}{\header HEADER}{\footer FOOTER}{\*\bkmkstart mark}Body{\pict\pngblip 89504e47}.}`,
			"Body."},
		{"binary data skipped", "{\\rtf1 a{\\pict\\bin6 }}{{\\x}b}", "ab"},
		{"fields: result kept, instruction dropped", `{\rtf1 See {\field{\*\fldinst HYPERLINK "http://x"}{\fldrslt the site}} now.}`, "See the site now."},
		{"footnotes after body", `{\rtf1 Body{\super\chftn}{\*\footnote\chftn\pard\plain \tab Note text.} continues.\par Next.}`,
			"Body continues.\nNext.\nNote text."},
		{"deleted and hidden text excluded", `{\rtf1 kept {\deleted GONE }{\v hidden}{\deleted0 back} \v x\v0 end}`, "kept back end"},
		{"list labels dropped", `{\rtf1{\listtext\pard\plain 1.\tab}item one\par{\pntext \'b7\tab}item two}`, "item one\nitem two"},
		{"table", `{\rtf1\trowd\cellx1000\cellx2000\pard\intbl A1\cell B1\par more\cell\row\trowd\pard\intbl A2\cell B2\cell\row\pard After.}`,
			"A1\tB1\nmore\nA2\tB2\nAfter."},
		{"unbalanced braces tolerated", `{\rtf1 a}}}b{{c`, "abc"},
		{"raw 8-bit text in the code page", "{\\rtf1\\ansicpg1250 \xe8esk\xfd}", "český"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := parseWith(t, parseRTF, []byte(c.rtf)); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestRTF_NotRTF(t *testing.T) {
	_, err := parseRTF([]byte("plain text named .rtf"), Options{})
	wantErrorKind(t, err, ErrCorrupt, `does not start with "{\rtf"`)
}

// TestRTF_Linear feeds inputs built to hurt a careless reader: deep
// nesting, endless control words and parameters, escapes and picture
// data. Each is 4 MB and takes a fraction of a second; the bound is loose
// for loaded machines, as a quadratic reader would take hours.
func TestRTF_Linear(t *testing.T) {
	const n = 1 << 20
	cases := map[string]string{
		"nested groups":     `{\rtf1 ` + strings.Repeat("{", n) + "deep" + strings.Repeat("}", n),
		"unclosed groups":   `{\rtf1 ` + strings.Repeat(`{\b x`, n),
		"long control":      `{\rtf1 \` + strings.Repeat("a", 4*n) + " x}",
		"long parameter":    `{\rtf1 \fs` + strings.Repeat("9", 4*n) + " x}",
		"many unicode":      `{\rtf1\uc5 ` + strings.Repeat(`\u269?`, n) + "}",
		"hex escapes":       `{\rtf1 ` + strings.Repeat(`\'e8`, n) + "}",
		"picture data":      `{\rtf1 {\pict ` + strings.Repeat("0123456789abcdef", n/4) + "}x}",
		"stars":             `{\rtf1 ` + strings.Repeat(`{\*`, n) + "}",
		"big bin":           `{\rtf1 \bin999999999999 x}`,
		"fonts":             `{\rtf1{\fonttbl` + strings.Repeat(`\f9\fcharset238`, n/2) + "}}",
		"stray backslashes": `{\rtf1 ` + strings.Repeat(`\`, 4*n),
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			if _, err := parseRTF([]byte(doc), Options{}); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestRTF_Fixtures(t *testing.T) { testFixtures(t, parseRTF, "*.rtf") }

func FuzzRTF(f *testing.F) {
	for _, s := range []string{
		`{\rtf1\ansi\ansicpg1250\deff0{\fonttbl{\f0\fcharset238 Arial;}}\f0 P\'f8\u345?li\par}`,
		`{\rtf1{\*\footnote x}{\field{\*\fldinst a}{\fldrslt b}}\trowd\intbl a\cell b\cell\row}`,
		`{\rtf1\uc2\u-10179\u-8704 ab{\pict\bin3 {}}}`,
		`{\rtf1 {\header h}{\v v}{\deleted d}\tab\line\~\-\_\{\}\\}`,
		`{\rtf1 \'`,
		`{\rtf1 \u`,
		`{\rtf1{\colortbl;\red255\green255\blue255;\red0\green0\blue0;}a{\cf1 b}{\cf1\cb2 c}{\fs2 d}\trowd\clcbpat2\cellx9\intbl{\cf1 e}\cell\row}`,
	} {
		f.Add([]byte(s))
	}
	if files, _ := filepath.Glob("testdata/*.rtf"); len(files) > 0 {
		if b, err := os.ReadFile(files[0]); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParser(t, parseRTF, data, "f.rtf", 3*len(data)+16)
	})
}
