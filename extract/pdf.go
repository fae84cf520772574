package extract

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode"

	pdf "github.com/ledongthuc/pdf"
)

// This file reads PDFs: it opens the file (repairing the header and
// trailer quirks the library is strict about), reads every page's glyphs
// (pdf_content.go), rebuilds text from their positions (pdf_layout.go,
// pdf_clean.go), and recognises the PDFs that have no text to read: scans,
// which go to OCR when it is enabled (ocr.go), and password-protected files.

func init() { parsers[FormatPDF] = parsePDF }

// Thresholds for telling a scan from a document with text.
const (
	// minPageGlyphs: a page with fewer glyphs than this but an image is a
	// scanned page (a scanner may stamp a date or a page number as text).
	minPageGlyphs = 20
	// minOutlineShapes: a page without text that draws at least this many
	// shapes is read as letters converted to outlines (or a drawing), to
	// be seen by OCR, not as an empty page; a rule or a frame is not.
	minOutlineShapes = 20
	// maxUnmapped: above this share of undecodable glyphs the text layer is
	// useless (fonts without a Unicode mapping) and is treated like a scan.
	maxUnmapped = 0.5
	// maxTreeDepth bounds the nesting of the page tree; real trees are a
	// few levels deep.
	maxTreeDepth = 64
)

func parsePDF(content []byte, opt Options) (string, error) {
	if opt.PDFEngine == PDFEngineGo {
		return parseGoPDF(content, opt)
	}
	// Each reading of the file (the preflight, PDFium, the Go reader when
	// asked) has the document's limits to itself: a 12,000-page thesis is
	// within max_pages though two readers count its pages. The context,
	// and so the timeout, is the document's.
	bud := budgetOf(opt)
	phase := func() Options {
		o := opt
		o.budget = newBudget(bud.ctx, bud.lim)
		return o
	}
	if err := preflightPDF(content, phase().budget); err != nil {
		return "", err
	}
	pdfiumOpt := phase()
	contents, err := readPDFium(content, pdfiumOpt.budget)
	var failure *pdfiumOpenFailure
	if errors.As(err, &failure) && failure.err == nil && failure.code == pdfiumErrFormat {
		// No trailer, or none PDFium can use: a file cut short.
		if repaired, ok := repairTrailer(content, pdfiumOpt.budget); ok {
			pdfiumOpt = phase()
			if c, rerr := readPDFium(repaired, pdfiumOpt.budget); rerr == nil {
				contents, err = c, nil
			}
		}
	}
	if err != nil {
		if !errors.As(err, &failure) {
			return "", err
		}
		e, final := pdfiumOpenError(failure.code, failure.err)
		if final {
			return "", e
		}
		// PDFium could not open the file; the Go reader repairs other
		// damage and is tried before giving up.
		return parseGoPDF(content, phase())
	}
	text, err := pdfText(content, contents, pdfiumOpt)
	if err == nil && hasWords(text) {
		// The hidden text PDFium's pages left out is the document's
		// finding only now that their text is the document's.
		reportHidden(opt, contents)
		return text, nil
	}
	// PDFium found nothing to read. The Go reader reads a few files
	// PDFium does not (fonts whose encoding only it understands); when it
	// finds nothing either, PDFium's verdict stands.
	goText, goErr := parseGoPDF(content, phase())
	switch {
	case goErr == nil && hasWords(goText):
		return goText, nil
	case (err == nil || errors.Is(err, ErrEmpty)) && errors.Is(goErr, ErrCorrupt):
		// A document that shows nothing because it is damaged: the
		// damage is the better reason.
		return "", goErr
	}
	return text, err
}

// hasWords reports whether text holds a letter or digit.
func hasWords(text string) bool {
	return strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// parseGoPDF reads a PDF with ledongthuc/pdf and plagd's content
// interpreter (pdf_content.go).
func parseGoPDF(content []byte, opt Options) (string, error) {
	bud := budgetOf(opt)
	r, err := openPDF(content, bud)
	if err != nil {
		return "", err
	}
	pages, err := pageList(r, bud)
	if err != nil {
		return "", err
	}
	doc := newPDFDoc(bud)
	contents := make([]pageContent, len(pages))
	for i, p := range pages {
		contents[i] = readPage(p, doc)
	}
	if err := unreadable(r, contents); err != nil {
		return "", err
	}
	text, err := pdfText(content, contents, opt)
	if err == nil && hasWords(text) {
		reportHidden(opt, contents)
	}
	return text, err
}

// pdfText is the text of a document's pages, whichever engine read them:
// laid out, or from OCR for the pages that have no text to read.
func pdfText(content []byte, contents []pageContent, opt Options) (string, error) {
	scanned, unmapped := classifyPages(contents)
	if len(scanned) > 0 || unmapped {
		return ocrFallback(content, contents, scanned, unmapped, opt)
	}
	return layoutPages(contents, nil, budgetOf(opt)), nil
}

// unreadable reports a document none of whose pages could be read, which
// would otherwise pass for an empty one. The usual cause is encryption the
// library gets wrong (40-bit RC4) or damaged compressed streams.
func unreadable(r *pdf.Reader, contents []pageContent) *Error {
	var failure any
	for _, c := range contents {
		if c.drawn > 0 || c.images > 0 || c.shapes > 0 {
			return nil
		}
		if failure == nil {
			failure = c.failure
		}
	}
	if failure == nil {
		return nil
	}
	if !r.Trailer().Key("Encrypt").IsNull() {
		return newError(ErrEncrypted, "the PDF is encrypted in a way plagd could not decrypt (%s); save it again without protection", quote(failure))
	}
	return newError(ErrCorrupt, "the PDF is damaged: its pages could not be read (%s)", quote(failure))
}

// classifyPages finds the pages that must be seen to be read: images
// without text (a scan) or shapes without text (letters converted to
// outlines), and whether the document's text layer is mostly undecodable.
func classifyPages(contents []pageContent) (scanned []int, unmapped bool) {
	drawn, bad := 0, 0
	for i, c := range contents {
		drawn += c.drawn
		bad += c.unmapped
		if (c.images > 0 || c.shapes >= minOutlineShapes) && c.drawn-c.unmapped < minPageGlyphs {
			scanned = append(scanned, i)
		}
	}
	return scanned, drawn > 0 && float64(bad) > maxUnmapped*float64(drawn)
}

// ocrFallback handles documents with pages that have no usable text. With
// OCR enabled those pages (all pages, when the fonts are undecodable) are
// recognised; otherwise the document fails with ErrNoTextLayer when it has
// nothing else, and keeps the text of its other pages when it has.
func ocrFallback(content []byte, contents []pageContent, scanned []int, unmapped bool, opt Options) (string, error) {
	if unmapped {
		scanned = scanned[:0]
		for i := range contents {
			scanned = append(scanned, i)
		}
	}
	if opt.OCR.Tesseract != "" {
		texts, err := ocrPages(content, scanned, opt)
		if err != nil {
			return "", err
		}
		return layoutPages(contents, texts, budgetOf(opt)), nil
	}
	if unmapped {
		return "", newError(ErrNoTextLayer, "no text layer: the fonts of this PDF do not say which letters they draw (no Unicode mapping), so its %d pages can only be read by OCR; enable OCR (extract.ocr)", len(contents))
	}
	if len(scanned) < len(contents) {
		// Some pages are scans (an inserted signed declaration, a figure
		// page): the text of the others is still the document.
		return layoutPages(contents, nil, budgetOf(opt)), nil
	}
	if !allImages(contents) {
		what, them := fmt.Sprintf("%d pages are", len(contents)), "them"
		if len(contents) == 1 {
			what, them = "page is", "it"
		}
		return "", newError(ErrNoTextLayer, "no text layer: the %s drawn, not written (letters converted to outlines, or a drawing without text); enable OCR (extract.ocr) to read %s", what, them)
	}
	return "", noTextLayer(len(contents), "enable OCR (extract.ocr) to read them")
}

// allImages reports whether every page without text shows an image (a
// scan) rather than only shapes.
func allImages(contents []pageContent) bool {
	for _, c := range contents {
		if c.images == 0 && c.shapes >= minOutlineShapes && c.drawn-c.unmapped < minPageGlyphs {
			return false
		}
	}
	return true
}

// noTextLayer is the ErrNoTextLayer error of a scan of n pages; hint says
// what to do about it.
func noTextLayer(n int, hint string) *Error {
	if n == 1 {
		return newError(ErrNoTextLayer, "no text layer: the page is an image (a scan); %s", strings.Replace(hint, "them", "it", 1))
	}
	return newError(ErrNoTextLayer, "no text layer: the %d pages are images (a scan); %s", n, hint)
}

// layoutPages turns pages into text. ocr, when not nil, replaces the text
// of the pages it has.
func layoutPages(contents []pageContent, ocr map[int]string, bud *budget) string {
	pages := make([]pageLines, len(contents))
	for i, c := range contents {
		bud.spend(len(c.glyphs) + 1)
		pages[i] = pageLines{lines: groupLines(c.glyphs), top: c.top, bottom: c.bottom}
	}
	dropRunningLines(pages)
	side := sideLines(contents, bud)
	var all []textLine
	for i, p := range pages {
		if t, ok := ocr[i]; ok {
			all = append(all, ocrLines(t)...)
			continue
		}
		bud.check()
		for _, b := range readingOrder(p.lines, 2) {
			all = append(all, blockLines(b)...)
		}
		for j, l := range side[i] {
			before := breakLine
			if j == 0 {
				before = breakPara
			}
			all = append(all, textLine{text: l, before: before})
		}
	}
	return renderLines(joinHyphenated(all))
}

// sideLines lays out each page's text in other directions than its own
// (splitOrientation), as lines that follow the page's text. A line that
// comes back on many pages (a download stamp up the margin of every page)
// is dropped, as running headers are.
func sideLines(contents []pageContent, bud *budget) [][]string {
	out := make([][]string, len(contents))
	onPages := map[string]map[int]bool{}
	for i, c := range contents {
		for _, gs := range c.side {
			bud.spend(len(gs) + 1)
			for _, b := range readingOrder(groupLines(gs), 2) {
				for _, l := range blockLines(b) {
					if strings.TrimSpace(l.text) == "" {
						continue
					}
					out[i] = append(out[i], l.text)
					k := runningKey(l.text)
					if onPages[k] == nil {
						onPages[k] = map[int]bool{}
					}
					onPages[k][i] = true
				}
			}
		}
	}
	for i, lines := range out {
		kept := lines[:0]
		for _, l := range lines {
			if n := len(onPages[runningKey(l)]); n >= 2 && float64(n) >= 0.4*float64(len(contents)) {
				continue
			}
			kept = append(kept, l)
		}
		out[i] = kept
	}
	return out
}

// ocrLines splits OCR output into lines for hyphen joining: blank lines
// separate paragraphs.
func ocrLines(text string) []textLine {
	var out []textLine
	before := breakBlock
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			if len(out) > 0 {
				before = breakPara
			}
			continue
		}
		out = append(out, textLine{text: strings.TrimSpace(cleanGlyph(l)), before: before})
		before = breakLine
	}
	return out
}

// openPDF opens a PDF, mapping the library's failures to error kinds.
//
// The library insists on a "%PDF-1.x" header at byte 0 and "%%EOF" within
// the last 100 bytes. Readers accept more and so do real files: PDF 2.0
// headers, junk before the header (some mail gateways), and padding or
// junk after the last %%EOF (incomplete transfers padded with zeros, or
// files concatenated by buggy upload code). Such files are repaired in a
// copy; a file with no %%EOF at all is truncated.
func openPDF(content []byte, bud *budget) (*pdf.Reader, error) {
	i := bytes.Index(content[:min(len(content), 1024)], []byte("%PDF-"))
	if i < 0 {
		return nil, newError(ErrCorrupt, "not a PDF: the file is named or typed as a PDF but has no PDF header")
	}
	content = content[i:]
	eof := bytes.LastIndex(content, []byte("%%EOF"))
	if eof < 0 {
		return nil, newError(ErrCorrupt, "the PDF is truncated (it does not end with %%%%EOF): probably an incomplete upload or copy")
	}
	if tail := content[eof+5:]; len(bytes.TrimSpace(tail)) > 0 || len(tail) > 50 {
		content = content[:eof+5]
	}
	if h := content[:min(len(content), 9)]; len(h) < 9 || h[5] != '1' || h[6] != '.' || h[7] < '0' || h[7] > '7' || (h[8] != '\r' && h[8] != '\n') {
		fixed := bytes.Clone(content)
		if len(fixed) < 9 {
			return nil, newError(ErrCorrupt, "the PDF is truncated: the file is only %d bytes long", len(content))
		}
		copy(fixed[5:9], "1.7\n")
		content = fixed
	}
	// The library trusts the counts, sizes and offsets of the file; those
	// it would allocate or loop by are checked first (pdf_validate.go).
	if err := validatePDF(content, bud); err != nil {
		return nil, err
	}
	r, err := pdf.NewReaderEncrypted(bytes.NewReader(content), int64(len(content)), func() string { return "" })
	if err != nil {
		return nil, pdfOpenError(err)
	}
	if err := checkXrefTable(r, bud); err != nil {
		return nil, err
	}
	return r, nil
}

// pdfOpenError explains why the library could not open a file.
func pdfOpenError(err error) *Error {
	msg := quote(err)
	switch {
	case errors.Is(err, pdf.ErrInvalidPassword):
		return newError(ErrEncrypted, "the PDF is password-protected")
	case strings.Contains(msg, "256-bit"), strings.Contains(msg, "R=5"), strings.Contains(msg, "R=6"), strings.Contains(msg, "V=5"):
		// AES-256 (PDF 1.7 extension level 3 and PDF 2.0) is also used
		// with an empty password only to forbid copying or printing.
		return newError(ErrEncrypted, "the PDF is encrypted with AES-256, which plagd cannot read (it may also need a password); save it again without protection or copy restrictions")
	case strings.Contains(msg, "encryption"):
		return newError(ErrEncrypted, "the PDF is encrypted in a way plagd cannot read (%s); save it again without protection", msg)
	}
	return newError(ErrCorrupt, "the PDF is damaged and could not be read (%s)", msg)
}

// pageList walks the page tree once. Reader.Page walks it from the root for
// every page, which is quadratic in the page count, and follows cycles
// into a hang. A node met twice (the tree lists itself, or one node under
// two parents) fails the document: the tree is not a tree, and following
// it would read pages without end.
func pageList(r *pdf.Reader, bud *budget) ([]pdf.Page, error) {
	root := r.Trailer().Key("Root").Key("Pages")
	var pages []pdf.Page
	seen := map[objRef]bool{}
	if ref, ok := refOf(root); ok {
		seen[ref] = true
	}
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		bud.spend(1)
		if depth > maxTreeDepth {
			return
		}
		kids := v.Key("Kids")
		if kids.Kind() != pdf.Array {
			if v.Kind() == pdf.Dict && (v.Key("Type").Name() == "Page" || !v.Key("Contents").IsNull()) {
				bud.page()
				pages = append(pages, pdf.Page{V: v})
			}
			return
		}
		for i := 0; i < kids.Len(); i++ {
			if ref, ok := rawRef(kids, i); ok {
				if seen[ref] {
					bud.fail(newError(ErrTooComplex, "the PDF's page tree is not a tree: it reaches object %d %d twice (a cycle)", ref.id, ref.gen))
				}
				seen[ref] = true
			}
			walk(kids.Index(i), depth+1)
		}
	}
	walk(root, 0)
	if len(pages) == 0 {
		if root.IsNull() {
			return nil, newError(ErrCorrupt, "the PDF is damaged: it has no page tree")
		}
		return nil, newError(ErrCorrupt, "the PDF has no pages")
	}
	return pages, nil
}
