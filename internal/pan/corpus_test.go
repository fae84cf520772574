package pan

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenTextAlignmentLayout(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "susp", "suspicious-document00001.txt"), "a b c")
	write(t, filepath.Join(dir, "susp", "suspicious-document00002.txt"), "d e f")
	write(t, filepath.Join(dir, "src", "source-document00001.txt"), "a b c")
	write(t, filepath.Join(dir, "src", "source-document00002.txt"), "x y z")
	write(t, filepath.Join(dir, "pairs"), "suspicious-document00001.txt source-document00001.txt\nsuspicious-document00002.txt source-document00002.txt\n")
	write(t, filepath.Join(dir, "01-no-plagiarism", "suspicious-document00002-source-document00002.xml"),
		`<document reference="suspicious-document00002.txt"></document>`)
	write(t, filepath.Join(dir, "03-random-obfuscation", "suspicious-document00001-source-document00001.xml"),
		`<document reference="suspicious-document00001.txt">
  <feature name="plagiarism" this_offset="0" this_length="5" source_reference="source-document00001.txt" source_offset="0" source_length="5"/>
  <feature name="plagiarism" obfuscation="summary" this_offset="1" this_length="2" source_reference="source-document00001.txt" source_offset="1" source_length="2"/>
  <feature name="about" this_offset="1" this_length="2"/>
</document>`)
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Layout != TextAlignment || len(c.Susp) != 2 || len(c.Src) != 2 {
		t.Fatalf("layout %s, %d susp, %d src", c.Layout, len(c.Susp), len(c.Src))
	}
	wantPairs := []Pair{
		{"suspicious-document00001.txt", "source-document00001.txt", "03-random-obfuscation"},
		{"suspicious-document00002.txt", "source-document00002.txt", "01-no-plagiarism"},
	}
	sort.Slice(c.Pairs, func(i, j int) bool { return c.Pairs[i].Susp < c.Pairs[j].Susp })
	if !reflect.DeepEqual(c.Pairs, wantPairs) {
		t.Errorf("pairs %+v, want %+v", c.Pairs, wantPairs)
	}
	wantCases := []Annotation{
		{"suspicious-document00001.txt", 0, 5, "source-document00001.txt", 0, 5, true, "random-obfuscation"},
		{"suspicious-document00001.txt", 1, 2, "source-document00001.txt", 1, 2, true, "summary"},
	}
	if !reflect.DeepEqual(c.Cases, wantCases) {
		t.Errorf("cases %+v, want %+v", c.Cases, wantCases)
	}
	if PairFileName("suspicious-document00001.txt", "source-document00009.txt") != "suspicious-document00001-source-document00009.xml" {
		t.Error("PairFileName")
	}
}

func TestOpenExternalLayoutNested(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suspicious-documents", "part1", "suspicious-document00001.txt"), "\ufeffa b c")
	write(t, filepath.Join(dir, "suspicious-documents", "part1", "suspicious-document00001.xml"),
		`<document reference="suspicious-document00001.txt">
  <feature name="plagiarism" type="artificial" obfuscation="none" this_offset="1" this_length="5" source_reference="source-document00001.txt" source_offset="0" source_length="5"/>
  <feature name="plagiarism" type="simulated" this_offset="1" this_length="5" source_reference="source-document00001.txt" source_offset="0" source_length="5"/>
  <feature name="artificial-plagiarism" this_offset="9" this_length="5"/>
</document>`)
	write(t, filepath.Join(dir, "suspicious-documents", "part2", "suspicious-document00002.txt"), "x")
	write(t, filepath.Join(dir, "source-documents", "part1", "source-document00001.txt"), "a b c")
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Layout != External || len(c.Susp) != 2 || len(c.Src) != 1 || c.Susp[0].Rel != "part1/suspicious-document00001.txt" {
		t.Fatalf("%+v", c)
	}
	want := []Annotation{
		{"suspicious-document00001.txt", 1, 5, "source-document00001.txt", 0, 5, true, "none"},
		{"suspicious-document00001.txt", 1, 5, "source-document00001.txt", 0, 5, true, "simulated"},
		{"suspicious-document00001.txt", 9, 5, "", 0, 0, false, ""},
	}
	if !reflect.DeepEqual(c.Cases, want) {
		t.Errorf("cases %+v, want %+v", c.Cases, want)
	}
	// The two features differ only in their type: the script's set holds one.
	if n := len(Dedup(c.Cases)); n != 2 {
		t.Errorf("Dedup kept %d cases, want 2", n)
	}
	if _, err := Open(t.TempDir()); err == nil {
		t.Error("an empty folder opened as a corpus")
	}
}

func TestWriteDetectionsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	dets := []Annotation{
		{"s&1.txt", 10, 5, `src"1.txt`, 3, 4, true, ""},
		{"s&1.txt", 1, 5, "src2.txt", 0, 9, true, ""},
	}
	p := filepath.Join(dir, "s1.xml")
	if err := WriteDetections(p, "s&1.txt", dets); err != nil {
		t.Fatal(err)
	}
	if !Written(p) {
		t.Error("Written does not recognise the file")
	}
	got, err := ReadAnnotations(dir, DetectionTag)
	if err != nil {
		t.Fatal(err)
	}
	want := []Annotation{dets[1], dets[0]} // sorted by this_offset
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	if err := WriteDetections(p, "other.txt", dets); err == nil {
		t.Error("a detection of another document was written")
	}
}

func TestRetrievalAndByKind(t *testing.T) {
	cases := []Annotation{
		{"s1", 0, 10, "a", 0, 10, true, "none"},
		{"s1", 20, 10, "b", 0, 10, true, "simulated"},
		{"s2", 0, 10, "a", 50, 10, true, "none"},
	}
	ranked := map[string][]string{"s1": {"x", "a"}, "s2": nil}
	for i := 0; i < 20; i++ {
		ranked["s1"] = append(ranked["s1"], "y")
	}
	ranked["s1"] = append(ranked["s1"], "b") // rank 23
	r := RetrievalByKind(cases, func(s string) []string { return ranked[s] }, nil)
	if g := r[Overall]; g.Pairs != 3 || g.Found10 != 1 || g.Found100 != 2 {
		t.Errorf("overall %+v", g)
	}
	if g := r["none"]; g.Pairs != 2 || g.Found10 != 1 || g.Found100 != 1 || g.At100 != 0.5 {
		t.Errorf("none %+v", g)
	}
	// Aligned: s2's source a came from the related documents only.
	aligned := map[string][]string{"s1": {"x", "a"}, "s2": {"a"}}
	r = RetrievalByKind(cases, func(s string) []string { return ranked[s] }, func(s string) []string { return aligned[s] })
	if g := r[Overall]; g.Aligned != 2 || g.AlignedShare != 2.0/3 || g.Found100 != 2 {
		t.Errorf("overall with aligned %+v", g)
	}
	if g := r["none"]; g.Aligned != 2 || g.AlignedShare != 1 {
		t.Errorf("none with aligned %+v", g)
	}
	dets := []Annotation{
		{"s1", 0, 10, "a", 0, 10, true, ""},
		{"s1", 100, 10, "a", 100, 10, true, ""}, // a false alarm: counts only overall
	}
	bk := ByKind(cases, dets)
	if s := bk["none"]; s.Detections != 1 || s.Precision != 1 || s.Recall != 0.5 {
		t.Errorf("none %+v", s)
	}
	if s := bk[Overall]; s.Detections != 2 || s.Precision != 0.5 {
		t.Errorf("overall %+v", s)
	}
	if got := Kinds(bk); !reflect.DeepEqual(got, []string{Overall, "none", "simulated"}) {
		t.Errorf("Kinds = %v", got)
	}
}
