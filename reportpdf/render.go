package reportpdf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/plagd/plagd/passage"
	"github.com/plagd/plagd/report"
)

// Input is what a printed report shows.
type Input struct {
	// Report is the filtered report (report.Report.Filter): its figures,
	// sources and passages are printed as they are.
	Report report.Report
	// Name is the document's name as the pages show it.
	Name string
	// SourceName names a source as the pages do; nil: its title or
	// "document N".
	SourceName func(report.SourceReport) string
	// Exclusions says in words what is left out of the figures
	// ("quotations, the bibliography"); "" for nothing.
	Exclusions string
	// GeneratedBy and GeneratedAt say who printed the report, and when.
	GeneratedBy string
	GeneratedAt time.Time
	// TextHidden leaves the document's text out (a restricted document
	// printed by someone who may not read it): figures and sources stay.
	TextHidden bool
	// SourceHidden says whether a source's text is withheld from the
	// reader; its excerpts are then left out. nil: none is.
	SourceHidden func(report.SourceReport) bool
	// Review says whether the report was reviewed, by whom, when, with
	// the note ("" prints nothing).
	Review string
	// Default says that Report is filtered with the default filters, so
	// its coverage is the similarity index (report.Index). Otherwise the
	// coverage is printed as the figure "with these filters", and Index,
	// when known, as the similarity index beside it.
	Default bool
	Index   *float64
}

// ErrTooLong is returned for a document too long to print.
var ErrTooLong = errors.New("the document is too long to print as a PDF report")

// Render lays out in as an A4 PDF and returns the file's bytes.
func Render(in Input) ([]byte, error) {
	if len([]rune(in.Report.Text)) > maxRenderedTextRunes {
		return nil, fmt.Errorf("%w (%d characters, at most %d)", ErrTooLong, len([]rune(in.Report.Text)), maxRenderedTextRunes)
	}
	// Twice: the first pass counts the pages the footers name.
	_, pages, err := render(in, 0)
	if err != nil {
		return nil, err
	}
	b, _, err := render(in, pages)
	return b, err
}

func render(in Input, pages int) ([]byte, int, error) {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: gopdf.Rect{W: pageW, H: pageH}, Unit: gopdf.UnitPT})
	pdf.SetInfo(gopdf.PdfInfo{Title: "Similarity report: " + in.Name, Creator: "plagd", Producer: "plagd", CreationDate: in.GeneratedAt})
	if err := pdf.AddTTFFontData(fontRegular, goregular.TTF); err != nil {
		return nil, 0, err
	}
	if err := pdf.AddTTFFontData(fontBold, gobold.TTF); err != nil {
		return nil, 0, err
	}
	f := &flow{pdf: pdf}
	footer := fmt.Sprintf("plagd similarity report · %s · generated %s by %s", in.Name,
		in.GeneratedAt.UTC().Format("2006-01-02 15:04 UTC"), in.GeneratedBy)
	f.newPage = func() {
		pdf.AddPage()
		n := pdf.GetNumberOfPages()
		f.setFont(false, smallSize)
		num := "page " + strconv.Itoa(n)
		if pages > 0 {
			num += " of " + strconv.Itoa(pages)
		}
		f.textAt(clip(footer, 110), textLeft, pageH-marginBottom/2, grey)
		f.textAt(num, textRight-f.width(num), pageH-marginBottom/2, grey)
		f.pdf.SetStrokeColor(rule.r, rule.g, rule.b)
		f.pdf.SetLineWidth(0.5)
		f.pdf.Line(textLeft, pageH-marginBottom/2-smallSize-4, textRight, pageH-marginBottom/2-smallSize-4)
		f.x, f.y, f.lineH = textLeft, textTop, 0
	}
	f.newPage()
	head(f, in)
	sourceTable(f, in)
	if !in.TextHidden {
		documentText(f, in)
	}
	passages(f, in)
	if f.err != nil {
		return nil, 0, f.err
	}
	return pdf.GetBytesPdf(), pdf.GetNumberOfPages(), nil
}

// head prints the title, the index, the exclusions and who generated it.
func head(f *flow, in Input) {
	rep := in.Report
	f.line("Similarity report", style{bold: true, size: 18, color: ink})
	f.gap(0.2, bodySize)
	f.line(in.Name, style{bold: true, size: 12, color: ink})
	var facts []string
	if rep.Doc != 0 {
		facts = append(facts, "document "+strconv.FormatInt(rep.Doc, 10))
	}
	if rep.Author != "" {
		facts = append(facts, rep.Author)
	}
	if rep.Kind != "" {
		facts = append(facts, rep.Kind)
	}
	if rep.Year != 0 {
		facts = append(facts, strconv.Itoa(rep.Year))
	}
	if len(facts) > 0 {
		f.line(strings.Join(facts, " · "), style{size: bodySize, color: grey})
	}
	f.gap(0.6, bodySize)
	counted := 0
	for _, s := range rep.Sources {
		if len(s.Passages) > 0 {
			counted++
		}
	}
	if in.Default {
		f.line(pct(rep.Coverage)+" similarity index", style{bold: true, size: 22, color: accent})
	} else {
		f.line(pct(rep.Coverage)+" with these filters", style{bold: true, size: 22, color: accent})
		if in.Index != nil {
			f.line("Similarity index (the default filters: quotations, block quotes, the bibliography, common text and earlier versions left out): "+pct(*in.Index),
				style{size: bodySize, color: ink})
		}
	}
	f.line(fmt.Sprintf("%s of the text lies in passages found in %s; the whole text is the base, so every exclusion can only lower the figure.",
		pct(rep.Coverage), plural(counted, "source", "sources")), style{size: bodySize, color: ink})
	ex := in.Exclusions
	if ex == "" {
		ex = "nothing: quotations, the bibliography and common text count"
	}
	f.line("Left out of the figures: "+ex, style{size: bodySize, color: ink})
	if in.Review != "" {
		f.line(in.Review, style{bold: true, size: bodySize, color: ink})
	}
	f.line(fmt.Sprintf("Generated %s by %s.", in.GeneratedAt.UTC().Format("2 January 2006, 15:04 UTC"), in.GeneratedBy),
		style{size: bodySize, color: grey})
	f.gap(0.8, bodySize)
}

// sourceTable lists the sources with their figures.
func sourceTable(f *flow, in Input) {
	f.line("Sources", style{bold: true, size: 13, color: ink})
	if len(in.Report.Sources) == 0 {
		f.line("No similar documents.", style{size: bodySize, color: ink})
		return
	}
	cols := []struct {
		title string
		x     float64
		right bool
	}{{"#", textLeft, false}, {"Source", textLeft + 22, false}, {"This → source", textLeft + 268, true},
		{"Source → this", textLeft + 340, true}, {"Passages", textLeft + 392, true}, {"Share of this text", textRight, true}}
	row := func(cells []string, bold bool, c rgb) {
		f.room(smallSize * bodyLeading * 2)
		f.setFont(bold, smallSize)
		for i, col := range cols {
			s := cells[i]
			if i == 1 {
				s = clip(s, 48)
			}
			x := col.x
			if col.right {
				x -= f.width(s)
			}
			f.textAt(s, x, baseline(f.y, smallSize), c)
		}
		f.y += smallSize * bodyLeading
	}
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	row(titles, true, grey)
	for i, s := range in.Report.Sources {
		name := sourceName(in, s)
		if len(s.Passages) == 0 {
			name += " (scattered phrases only)"
		}
		c := ink
		if len(s.Passages) > 0 {
			c = colorOf(i).text
		}
		row([]string{strconv.Itoa(i + 1), name, pct(s.Similarity), pct(s.Reverse), strconv.Itoa(len(s.Passages)), pct(s.CoverageA)}, false, c)
	}
	f.gap(0.8, bodySize)
}

// documentText prints the text with each passage highlighted in its
// source's colour and numbered with the source's rank.
func documentText(f *flow, in Input) {
	rep := in.Report
	f.room(bodySize * bodyLeading * 4)
	f.line("Text", style{bold: true, size: 13, color: ink})
	f.line("Highlighted: passages found in a source, numbered as the sources above; grey: text left out of the figures.",
		style{size: smallSize, color: grey})
	f.gap(0.4, bodySize)
	text := report.Reflow(rep.Text)
	for _, run := range runs(rep) {
		st := style{size: bodySize, color: ink}
		switch {
		case run.source >= 0:
			c := colorOf(run.source)
			st.fill, st.color = &c.fill, ink
			if run.starts {
				st.label, st.labelColor = "["+strconv.Itoa(run.source+1)+"]", c.text
			}
		case run.excluded:
			st.color = grey
		}
		f.text(text[run.r.Start:run.r.End], st)
	}
	f.gap(1, bodySize)
}

// passages prints, for each source, its passages: the document's words and
// the source's, side by side in turn.
func passages(f *flow, in Input) {
	rep := in.Report
	for i, s := range rep.Sources {
		if len(s.Passages) == 0 {
			continue
		}
		c := colorOf(i)
		f.room(bodySize * bodyLeading * 6)
		f.line(fmt.Sprintf("[%d] %s", i+1, sourceName(in, s)), style{bold: true, size: 12, color: c.text})
		f.line(fmt.Sprintf("%s of this text is in its passages (%s of the source's text); %s.", pct(s.CoverageA), pct(s.CoverageB),
			plural(len(s.Passages), "passage", "passages")), style{size: smallSize, color: grey})
		hidden := in.SourceHidden != nil && in.SourceHidden(s)
		for k, p := range s.Passages {
			f.gap(0.4, bodySize)
			f.room(bodySize * bodyLeading * 4)
			f.line(fmt.Sprintf("Passage %d.%d · %d words here, %d in the source", i+1, k+1, p.AWords, p.BWords),
				style{bold: true, size: smallSize, color: ink})
			if !in.TextHidden {
				f.text("This text: ", style{bold: true, size: bodySize, color: grey})
				f.text(excerpt(rep.Text, p.A()), style{size: bodySize, color: ink, fill: &c.fill})
				f.newline(bodySize, 0)
			}
			if hidden {
				f.line("Source: restricted; only admins can read its text.", style{size: bodySize, color: grey})
			} else {
				f.text("Source: ", style{bold: true, size: bodySize, color: grey})
				f.text(excerpt(s.Text, p.B()), style{size: bodySize, color: ink, fill: &c.fill})
				f.newline(bodySize, 0)
			}
		}
		f.gap(0.8, bodySize)
	}
}

// excerpt is a passage's text on one line, clipped.
func excerpt(text string, r passage.Range) string {
	r.Start, r.End = max(r.Start, 0), min(r.End, len(text))
	if r.End <= r.Start {
		return ""
	}
	return clip(strings.Join(strings.Fields(text[r.Start:r.End]), " "), maxPassageExcerptRunes)
}

func sourceName(in Input, s report.SourceReport) string {
	if in.SourceName != nil {
		return in.SourceName(s)
	}
	if s.Title != "" {
		return s.Title
	}
	return "document " + strconv.FormatInt(s.ID, 10)
}

func pct(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + " %" }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
