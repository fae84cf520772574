package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/pan"
	"github.com/plagd/plagd/internal/pgtest"
)

// TestCLI_EvalPan runs `plagd eval pan` over the sample corpus (samples/pan-id,
// the corpus of the acceptance check): the detections it writes, read back
// and scored with the PAN measures, are the figures it prints, and plagdet
// meets the target. A second run replaces its own files; an --out holding
// other XML files, and a database holding other documents, are refused.
func TestCLI_EvalPan(t *testing.T) {
	url := pgtest.NewDB(t)
	corpus := filepath.Join("..", "..", "samples", "pan-id")
	out := filepath.Join(t.TempDir(), "det")
	text, code := plagd(t, url, "eval", "pan", corpus, "--out", out, "--json")
	if code != 0 {
		t.Fatalf("eval pan: exit %d\n%s", code, text)
	}
	var r evalReport
	if err := json.Unmarshal([]byte(text[strings.Index(text, "{"):]), &r); err != nil {
		t.Fatalf("--json output: %v\n%s", err, text)
	}
	all := r.Scores[pan.Overall]
	t.Logf("plagdet %.3f P %.3f R %.3f G %.3f, retrieval@100 %.3f (none %.3f)", all.Plagdet, all.Precision,
		all.Recall, all.Granularity, r.Retrieval[pan.Overall].At100, r.Retrieval["none"].At100)
	if all.Plagdet < 0.9 || all.Precision < 0.95 {
		t.Errorf("plagdet %.3f < 0.9 or precision %.3f < 0.95", all.Plagdet, all.Precision)
	}
	// An archive this small is indexed with 3-word windows too
	// (config.AutoExtraWindowWords), which reach the reworded sources that
	// share no 5-word run; the related documents are aligned besides.
	if rt := r.Retrieval[pan.Overall]; rt.At100 < 0.95 || rt.AlignedShare < rt.At100 {
		t.Errorf("sources by shared chunks %.3f, aligned %.3f: want at least 0.95, and no fewer aligned", rt.At100, rt.AlignedShare)
	}
	if r.Retrieval["none"].At100 != 1 {
		t.Errorf("unobfuscated retrieval@100 = %.3f, want 1", r.Retrieval["none"].At100)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.xml"))
	if len(files) != r.Suspicious || r.Suspicious != 35 {
		t.Errorf("%d detection files for %d suspicious documents", len(files), r.Suspicious)
	}
	c, err := pan.Open(corpus)
	if err != nil {
		t.Fatal(err)
	}
	dets, err := pan.ReadAnnotations(out, pan.DetectionTag)
	if err != nil {
		t.Fatal(err)
	}
	// Equal up to the order of the float sums (the files come back in another order).
	if s := pan.Evaluate(c.Cases, dets); s.Detections != all.Detections || math.Abs(s.Plagdet-all.Plagdet) > 1e-12 ||
		math.Abs(s.Precision-all.Precision) > 1e-12 || math.Abs(s.Recall-all.Recall) > 1e-12 || s.Granularity != all.Granularity {
		t.Errorf("the files score %+v, the command printed %+v", s, all)
	}

	// Again: the corpus is in the database already, the old files are
	// replaced. Without sentence seeds and related documents, reworded
	// copies are found less.
	text, code = plagd(t, url, "eval", "pan", corpus, "--out", out, "--json", "--sentence-dice", "0", "--related=false")
	if code != 0 {
		t.Fatalf("second eval pan: exit %d\n%s", code, text)
	}
	var plain evalReport
	if err := json.Unmarshal([]byte(text[strings.Index(text, "{"):]), &plain); err != nil {
		t.Fatalf("--json output: %v\n%s", err, text)
	}
	if p := plain.Scores[pan.Overall]; p.Recall >= all.Recall || p.Plagdet >= all.Plagdet {
		t.Errorf("windows and shared chunks only: plagdet %.3f recall %.3f, with sentence seeds and related documents %.3f %.3f; want lower",
			p.Plagdet, p.Recall, all.Plagdet, all.Recall)
	}
	if rt := plain.Retrieval[pan.Overall]; rt.AlignedShare != rt.At100 {
		t.Errorf("without --related, sources aligned %.3f != top 100 by chunks %.3f", rt.AlignedShare, rt.At100)
	}
	// Somebody else's XML in --out.
	other := filepath.Join(t.TempDir(), "other")
	write(t, filepath.Join(other, "truth.xml"), "<document/>")
	if text, code := plagd(t, url, "eval", "pan", corpus, "--out", other); code != 1 || !strings.Contains(text, "did not write") {
		t.Errorf("--out with foreign XML: exit %d\n%s", code, text)
	}
	if text, code := plagd(t, url, "eval", "pan", corpus); code != 2 || !strings.Contains(text, "--out") {
		t.Errorf("no --out: exit %d\n%s", code, text)
	}
	// A database with other documents.
	doc := filepath.Join(t.TempDir(), "essay.txt")
	write(t, doc, "an essay that is not part of the corpus")
	if text, code := plagd(t, url, "ingest", doc); code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, text)
	}
	if text, code := plagd(t, url, "eval", "pan", corpus, "--out", out); code != 1 || !strings.Contains(text, "not from this corpus") {
		t.Errorf("database with other documents: exit %d\n%s", code, text)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
