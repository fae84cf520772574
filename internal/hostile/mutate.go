package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"regexp"
	"strconv"
)

// Mutation is one malformed file of the corpus; Name says what was done
// to which valid file ("pdf-simple/huge-number@1234"), so a failure can be
// reproduced from the name alone.
type Mutation struct {
	Name string
	Data []byte
}

// Bases are the valid files Mutations starts from when given none: PDFs
// with a cross-reference table (with text, forms, several pages), a PDF
// with a cross-reference stream and an object stream, a DOCX and an ODT.
func Bases() []Mutation {
	return []Mutation{
		{"pdf-simple", SimplePDF("A plain page of text")},
		{"pdf-forms", NestedXObjectsPDF(3, 2)},
		{"pdf-pages", SharedStreamPDF(3, 300)},
		{"pdf-xrefstream", XrefStreamPDF("Text behind a cross-reference stream")},
		{"docx", SimpleDOCX("First paragraph of the essay.", "Second paragraph.")},
		{"odt", SimpleODT("First paragraph of the essay.", "Second paragraph.")},
	}
}

// Mutations returns n malformed files made from bases (Bases() when none
// are given), the same for the same seed: truncations, flipped bytes,
// absurd numbers in the PDF structure (xref subsections, trailers,
// startxref, stream /Length, /Size, /W, /Index, /N, /First, /Count,
// /Columns) and absurd sizes, counts and offsets in zip headers (local and
// central sizes, entry counts, offsets).
func Mutations(seed int64, n int, bases ...Mutation) []Mutation {
	if len(bases) == 0 {
		bases = Bases()
	}
	rng := rand.New(rand.NewSource(seed))
	out := make([]Mutation, 0, n)
	for i := 0; i < n; i++ {
		base := bases[rng.Intn(len(bases))]
		var kinds []func(*rand.Rand, []byte) (string, []byte)
		kinds = append(kinds, truncate, flipBytes)
		if bytes.HasPrefix(base.Data, []byte("%PDF")) {
			kinds = append(kinds, pdfNumber, pdfNumber, pdfNumber, pdfKeyNumber, pdfKeyNumber, pdfSelfRef)
		}
		if bytes.HasPrefix(base.Data, []byte("PK")) {
			kinds = append(kinds, zipField, zipField, zipField)
		}
		data := bytes.Clone(base.Data)
		name := base.Name
		// One to three mutations on top of each other.
		for range 1 + rng.Intn(3) {
			what, d := kinds[rng.Intn(len(kinds))](rng, data)
			data = d
			name += "/" + what
		}
		out = append(out, Mutation{Name: fmt.Sprintf("%s#%d", name, i), Data: data})
	}
	return out
}

// absurd are the numbers a hostile file writes where a count, size or
// offset belongs.
var absurd = []string{"0", "-1", "1", "7", "255", "65536", "2147483647", "4294967295", "17179869184",
	"9223372036854775807", "99999999999999999999", "-9223372036854775808", "8388608", "1e308"}

func truncate(rng *rand.Rand, b []byte) (string, []byte) {
	if len(b) == 0 {
		return "truncate", b
	}
	at := rng.Intn(len(b))
	return "truncate@" + strconv.Itoa(at), b[:at]
}

func flipBytes(rng *rand.Rand, b []byte) (string, []byte) {
	if len(b) == 0 {
		return "flip", b
	}
	k := 1 + rng.Intn(8)
	for range k {
		b[rng.Intn(len(b))] ^= byte(1 + rng.Intn(255))
	}
	return "flip" + strconv.Itoa(k), b
}

var pdfInt = regexp.MustCompile(`-?[0-9]+`)

// pdfNumber replaces one number of the file (an xref entry, a subsection
// header, an object number, startxref, a length) with an absurd one.
func pdfNumber(rng *rand.Rand, b []byte) (string, []byte) {
	locs := pdfInt.FindAllIndex(b, -1)
	if len(locs) == 0 {
		return "number", b
	}
	l := locs[rng.Intn(len(locs))]
	v := absurd[rng.Intn(len(absurd))]
	return fmt.Sprintf("number@%d=%s", l[0], v), splice(b, l[0], l[1], v)
}

var pdfKey = regexp.MustCompile(`/(Length|Size|W|Index|N|First|Count|Columns|Prev|Predictor)[ \[]*(-?[0-9]+)`)

// pdfKeyNumber replaces the number after a key the library trusts.
func pdfKeyNumber(rng *rand.Rand, b []byte) (string, []byte) {
	locs := pdfKey.FindAllSubmatchIndex(b, -1)
	if len(locs) == 0 {
		return pdfNumber(rng, b)
	}
	l := locs[rng.Intn(len(locs))]
	v := absurd[rng.Intn(len(absurd))]
	return fmt.Sprintf("key%s=%s", b[l[2]:l[3]], v), splice(b, l[4], l[5], v)
}

var pdfRefRe = regexp.MustCompile(`([0-9]+) 0 R`)

// pdfSelfRef points a reference at another object of the file: page
// trees that list themselves, forms that draw themselves, /Prev loops.
func pdfSelfRef(rng *rand.Rand, b []byte) (string, []byte) {
	locs := pdfRefRe.FindAllSubmatchIndex(b, -1)
	if len(locs) < 2 {
		return pdfNumber(rng, b)
	}
	l := locs[rng.Intn(len(locs))]
	m := locs[rng.Intn(len(locs))]
	v := string(b[m[2]:m[3]])
	return "ref=" + v, splice(b, l[2], l[3], v)
}

// zipField overwrites a size, count or offset field of a zip header.
func zipField(rng *rand.Rand, b []byte) (string, []byte) {
	type field struct {
		sig    string
		offset int
		width  int
		name   string
	}
	fields := []field{
		{"PK\x03\x04", 18, 4, "local-compressed-size"}, {"PK\x03\x04", 22, 4, "local-size"},
		{"PK\x03\x04", 26, 2, "local-name-len"}, {"PK\x03\x04", 28, 2, "local-extra-len"},
		{"PK\x03\x04", 8, 2, "local-method"},
		{"PK\x01\x02", 20, 4, "central-compressed-size"}, {"PK\x01\x02", 24, 4, "central-size"},
		{"PK\x01\x02", 28, 2, "central-name-len"}, {"PK\x01\x02", 30, 2, "central-extra-len"},
		{"PK\x01\x02", 42, 4, "central-local-offset"}, {"PK\x01\x02", 10, 2, "central-method"},
		{"PK\x05\x06", 8, 2, "eocd-entries-disk"}, {"PK\x05\x06", 10, 2, "eocd-entries"},
		{"PK\x05\x06", 12, 4, "eocd-cd-size"}, {"PK\x05\x06", 16, 4, "eocd-cd-offset"},
	}
	f := fields[rng.Intn(len(fields))]
	var at []int
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(f.sig))
		if j < 0 {
			break
		}
		at = append(at, i+j)
		i += j + 4
	}
	if len(at) == 0 {
		return flipBytes(rng, b)
	}
	p := at[rng.Intn(len(at))] + f.offset
	if p+f.width > len(b) {
		return truncate(rng, b)
	}
	values := []uint64{0, 1, 0xffff, 0xffffffff, uint64(rng.Intn(1 << 16)), uint64(rng.Uint32()), uint64(len(b)), uint64(len(b) * 1000)}
	v := values[rng.Intn(len(values))]
	if f.width == 2 {
		binary.LittleEndian.PutUint16(b[p:], uint16(v))
	} else {
		binary.LittleEndian.PutUint32(b[p:], uint32(v))
	}
	return fmt.Sprintf("%s=%d", f.name, v), b
}

func splice(b []byte, from, to int, v string) []byte {
	out := make([]byte, 0, len(b)-(to-from)+len(v))
	out = append(out, b[:from]...)
	out = append(out, v...)
	return append(out, b[to:]...)
}
