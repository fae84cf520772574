package pan

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/plagd/plagd/invindex"
)

// The official scorer lives next to the shared corpus; the corpus itself is
// also in the repository (samples/pan-id).
var (
	scorerPath = filepath.Join("..", "..", "..", "shared", "corpora", "pan-id", "pan-measures.py")
	sampleDir  = filepath.Join("..", "..", "samples", "pan-id")
)

const python = "/usr/bin/python3"

// pyScores runs the official script's functions on the truth in truthDir
// and the detections in detDir and returns its unrounded figures.
func pyScores(t *testing.T, truthDir, detDir string) map[string]float64 {
	t.Helper()
	prog := `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("panm", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
cases = m.extract_annotations_from_files(sys.argv[2], "plagiarism")
dets = m.extract_annotations_from_files(sys.argv[3], "detected-plagiarism")
rec, prec = m.macro_avg_recall_and_precision(cases, dets)
mrec, mprec = m.micro_avg_recall_and_precision(cases, dets)
gran = m.granularity(cases, dets)
print(json.dumps({"cases": len(cases), "dets": len(dets), "rec": float(rec), "prec": float(prec),
    "mrec": float(mrec), "mprec": float(mprec), "gran": float(gran),
    "plagdet": float(m.plagdet_score(rec, prec, gran)), "mplagdet": float(m.plagdet_score(mrec, mprec, gran))}))
`
	out, err := exec.Command(python, "-c", prog, scorerPath, truthDir, detDir).CombinedOutput()
	if err != nil {
		t.Fatalf("official scorer: %v\n%s", err, out)
	}
	var m map[string]float64
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("official scorer output %q: %v", out, err)
	}
	return m
}

func needScorer(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skipf("skipped: %s not found (the official PAN scorer needs it, with numpy)", python)
	}
	if err := exec.Command(python, "-c", "import numpy").Run(); err != nil {
		t.Skipf("skipped: numpy is missing for %s (apt-get install python3-numpy)", python)
	}
	if _, err := os.Stat(scorerPath); err != nil {
		t.Skipf("skipped: the official scorer %s is not there", scorerPath)
	}
}

// writeAll writes dets as one detection file per suspicious document.
func writeAll(t *testing.T, dir string, dets []Annotation) {
	t.Helper()
	by := map[string][]Annotation{}
	for _, d := range dets {
		by[d.This] = append(by[d.This], d)
	}
	for ref, ds := range by {
		if err := WriteDetections(filepath.Join(dir, ref[:len(ref)-len(filepath.Ext(ref))]+".xml"), ref, ds); err != nil {
			t.Fatal(err)
		}
	}
}

// detectionSets are fixed transformations of the truth, plus the stand-in
// aligner's real output, covering the measures' corner cases: exact,
// shifted (partial overlap on both sides), halves, splits (granularity),
// wrong sources and offsets past the case (precision), duplicates.
func detectionSets(t *testing.T, c *Corpus) map[string][]Annotation {
	ext := func(a Annotation) Annotation { a.External, a.Obfuscation = true, ""; return a }
	sets := map[string][]Annotation{}
	for i, cs := range c.Cases {
		d := ext(cs)
		sets["exact"] = append(sets["exact"], d)
		s := d
		s.TOff, s.SOff = max(0, d.TOff+d.TLen/3), max(0, d.SOff-d.SLen/4)
		sets["shifted"] = append(sets["shifted"], s)
		h := d
		h.TLen, h.SLen = d.TLen/2, d.SLen/2
		sets["half"] = append(sets["half"], h)
		for k := 0; k < 1+i%3; k++ { // 1, 2 or 3 pieces
			p := d
			n := 1 + i%3
			p.TOff, p.TLen = d.TOff+k*d.TLen/n, d.TLen/n
			p.SOff, p.SLen = d.SOff+k*d.SLen/n, d.SLen/n
			sets["split"] = append(sets["split"], p)
		}
		m := d
		if i%4 == 0 {
			m.Src = "source-document99999.txt"
		}
		if i%4 == 1 {
			m.TLen += 500
		}
		sets["mixed"] = append(sets["mixed"], m, d) // d twice over the sets: dedup
		if i%5 == 0 {
			sets["mixed"] = append(sets["mixed"], d)
		}
		if i%2 == 0 {
			sets["some"] = append(sets["some"], d)
		}
	}
	tok := invindex.NewTokenizer(invindex.DefaultParams())
	opt := DefaultSeedOptions()
	srcs := map[string]*SeedDoc{}
	for _, d := range c.Src {
		tx, err := ReadText(d.Name, d.Path)
		if err != nil {
			t.Fatal(err)
		}
		srcs[d.Name] = NewSeedDoc(tok, tx, opt.Gram)
	}
	for _, d := range c.Susp {
		tx, err := ReadText(d.Name, d.Path)
		if err != nil {
			t.Fatal(err)
		}
		a := NewSeedDoc(tok, tx, opt.Gram)
		for _, s := range c.Src {
			sets["aligner"] = append(sets["aligner"], Detections(a.Text, srcs[s.Name].Text, SeedAlign(a, srcs[s.Name], opt))...)
		}
	}
	return sets
}

func TestMeasuresMatchOfficialScript(t *testing.T) {
	needScorer(t)
	c, err := Open(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Cases) < 90 {
		t.Fatalf("read %d cases from %s, want the whole corpus", len(c.Cases), sampleDir)
	}
	for name, dets := range detectionSets(t, c) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeAll(t, dir, dets)
			py := pyScores(t, c.TruthDir, dir)
			// Read back what was written: the reader is under test too.
			got, err := ReadAnnotations(dir, DetectionTag)
			if err != nil {
				t.Fatal(err)
			}
			truth, err := ReadAnnotations(c.TruthDir, CaseTag)
			if err != nil {
				t.Fatal(err)
			}
			s := Evaluate(truth, got)
			check := func(what string, goV, pyV float64) {
				if math.Abs(goV-pyV) > 1e-9 {
					t.Errorf("%s: Go %.12f, official script %.12f", what, goV, pyV)
				}
			}
			check("cases", float64(s.Cases), py["cases"])
			check("detections", float64(s.Detections), py["dets"])
			check("recall", s.Recall, py["rec"])
			check("precision", s.Precision, py["prec"])
			check("micro recall", s.MicroRecall, py["mrec"])
			check("micro precision", s.MicroPrecision, py["mprec"])
			check("granularity", s.Granularity, py["gran"])
			check("plagdet", s.Plagdet, py["plagdet"])
			check("micro plagdet", s.MicroPlagdet, py["mplagdet"])
			t.Logf("%s: plagdet %.4f P %.4f R %.4f G %.4f (micro P %.4f R %.4f)", name, s.Plagdet, s.Precision, s.Recall, s.Granularity, s.MicroPrecision, s.MicroRecall)
		})
	}
}

// TestMeasuresScriptUnitCases are the script's own unit tests, in Go.
func TestMeasuresScriptUnitCases(t *testing.T) {
	ann1 := Annotation{"tref1", 0, 100, "sref1", 0, 100, true, ""}
	ann2 := Annotation{"tref1", 0, 100, "", 0, 0, false, ""}
	ann3 := Annotation{"tref1", 100, 100, "sref1", 100, 100, true, ""}
	ann4 := Annotation{"tref1", 0, 200, "sref1", 0, 200, true, ""}
	ann7 := Annotation{"tref2", 0, 100, "sref2", 0, 100, true, ""}
	ann9 := Annotation{"tref2", 50, 100, "sref2", 50, 100, true, ""}
	ann10 := Annotation{"tref2", 25, 75, "sref2", 25, 75, true, ""}
	A := func(as ...Annotation) []Annotation { return as }
	eq := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-8 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	eq("recall(1,1)", MacroRecall(A(ann1), A(ann1)), 1)
	eq("recall(1 7, 1)", MacroRecall(A(ann1, ann7), A(ann1)), 0.5)
	eq("recall(1, 7)", MacroRecall(A(ann1), A(ann7)), 0)
	eq("case recall(1, 2)", caseRecall(ann1, A(ann2)), 0.5)
	eq("case recall(1, 4 7)", caseRecall(ann1, A(ann4, ann7)), 1)
	eq("case recall(7, 9 10)", caseRecall(ann7, A(ann9, ann10)), 0.75)
	eq("precision(1, 4)", MacroPrecision(A(ann1), A(ann4)), 0.5)
	eq("precision(7, 9 10)", MacroPrecision(A(ann7), A(ann9, ann10)), 0.75)
	eq("precision(1, 3 4)", MacroPrecision(A(ann1), A(ann3, ann4)), 0.25)
	eq("granularity([], [])", Granularity(nil, nil), 1)
	eq("granularity(1, 2 3)", Granularity(A(ann1), A(ann2, ann3)), 1)
	eq("granularity(1, 2 3 4)", Granularity(A(ann1), A(ann2, ann3, ann4)), 2)
	eq("granularity(1 3, 2 4)", Granularity(A(ann1, ann3), A(ann2, ann4)), 1.5)
	eq("plagdet(.5,1,1)", Plagdet(0.5, 1, 1), 2.0/3)
	eq("plagdet(1,1,2)", Plagdet(1, 1, 2), 0.63092975)
	eq("plagdet(.25,.75,2)", Plagdet(0.25, 0.75, 2), 0.23659865)
	eq("plagdet(0,0,-1)", Plagdet(0, 0, -1), 0)
}

func TestTextChars(t *testing.T) {
	tx := NewText("x", "\ufeffžluť\r\nok")
	for b, want := range map[int]int{0: 0, 3: 1, 5: 2, 6: 3, 7: 4, 8: 4, 9: 5, 10: 6, 11: 7, 12: 8, 13: 9, 99: 9} {
		if got := tx.Chars(b); got != want {
			t.Errorf("Chars(%d) = %d, want %d", b, got, want)
		}
	}
	if fmt.Sprint(NewText("a", "abc").Chars(2)) != "2" {
		t.Error("ascii")
	}
}
