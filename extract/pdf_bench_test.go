package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testpdf"
)

// BenchmarkPDF times reading PDFs with each engine: the PDF fixtures and
// a 100-page thesis-like document (docs/EXTRACTION.md, "Speed"). Besides
// wall time it reports the process's CPU time per read (cpu-ms/op), which
// other work on a shared machine disturbs far less:
//
//	go test -run '^$' -bench BenchmarkPDF -benchtime 20x ./extract/
func BenchmarkPDF(b *testing.B) {
	files := map[string][]byte{"thesis100": thesisPDF(100)}
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.pdf"))
	for _, p := range paths {
		if strings.Contains(p, ".scan.") || strings.Contains(p, ".encrypted.") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files[strings.TrimSuffix(filepath.Base(p), ".pdf")] = data
	}
	if _, err := pdfiumPool(); err != nil { // compile once, outside the timings
		b.Fatal(err)
	}
	for _, engine := range []PDFEngine{PDFEnginePDFium, PDFEngineGo} {
		for name, data := range files {
			b.Run(string(engine)+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				cpu := processCPU()
				for b.Loop() {
					if _, err := Text(data, "x.pdf", "", Options{PDFEngine: engine}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// thesisPDF is a document of about pages full pages of prose.
func thesisPDF(pages int) []byte {
	para := "The committee examined whether the archive's documents share passages with one another, " +
		"and how the measured similarity depends on the length of the shared text and on its position in the work. "
	var lines []string
	for len(lines) < pages*48 {
		lines = append(lines, testpdf.Wrap(strings.Repeat(para, 6))...)
		lines = append(lines, "")
	}
	return testpdf.Lines(lines)
}
