package related

import (
	"slices"
	"testing"
)

// Stored vectors depend on TermHash: its values are pinned.
func TestTermHashPinned(t *testing.T) {
	for s, want := range map[string]uint64{"": 14695981039346656037, "a": 0xaf63dc4c8601ec8c, "bangun": TermHash("bangun")} {
		if got := TermHash(s); got != want {
			t.Errorf("TermHash(%q) = %#x, want %#x", s, got, want)
		}
	}
}

func TestWords(t *testing.T) {
	got := Words("Über-Theses, 2024 a x2 l'été NAÏVE", nil)
	want := []string{"über", "theses", "x2", "été", "naïve"}
	if !slices.Equal(got, want) {
		t.Fatalf("Words = %q, want %q", got, want)
	}
}

func TestDetect(t *testing.T) {
	en := "The committee examined whether the students of the faculty had copied their theses from the archive, and it found that most of them had not."
	id := "Pemerintah sedang menentukan kebijakan yang akan digunakan untuk pembangunan daerah dan masyarakat di seluruh Indonesia."
	for _, c := range []struct {
		text string
		want Lang
	}{{en, LangEnglish}, {id, LangIndonesian}, {"qwa zorblat fenik qwa drumol pex", LangNone}} {
		if got := Detect(Words(c.text, nil), AllLangs); got != c.want {
			t.Errorf("Detect(%.30q) = %v, want %v", c.text, got, c.want)
		}
	}
	for _, l := range append(AllLangs, LangNone) {
		if p, ok := ParseLang(l.String()); !ok || p != l {
			t.Errorf("ParseLang(%q) = %v", l, p)
		}
	}
}

func TestStems(t *testing.T) {
	for w, want := range map[string]string{
		"membangun": "bangun", "pembangunan": "bangun", "dibangun": "bangun",
		"bukunya": "buku", "makanan": "makan", "menyapu": "sapu", "bermain": "main",
		"rumah": "rumah", "apakah": "apa",
	} {
		if got := stemIndonesian(w); got != want {
			t.Errorf("stemIndonesian(%q) = %q, want %q", w, got, want)
		}
	}
	got := Terms(LangEnglish, Words("The students were copying theses", nil), nil)
	if want := []string{"student", "copi", "these"}; !slices.Equal(got, want) {
		t.Errorf("English terms %q, want %q", got, want)
	}
}

// TestAnalyzerEqualsAnalyze: the cached analysis gives the same language
// and counts as the plain one, text after text (the cache carried over).
func TestAnalyzerEqualsAnalyze(t *testing.T) {
	texts := []string{
		"The students were studying the studies of running runners quickly.",
		"Les étudiants étudient les études; the runner runs.",
		"Para mahasiswa sedang mempelajari pembelajaran yang dipelajari.",
		"The students were studying the studies of running runners quickly, again and again.",
		"12 3 x",
	}
	var a Analyzer
	for _, text := range texts {
		l1, c1 := Analyze(text, nil)
		l2, c2 := a.Analyze(text)
		if l1 != l2 || !slices.Equal(c1, c2) {
			t.Fatalf("%q: Analyze gives %v %v, Analyzer %v %v", text, l1, c1, l2, c2)
		}
	}
}

// TestWordsUndoDisguises: a disguised copy has the words of the clean one
// (disguise.Plain), and a Russian text keeps its own.
func TestWordsUndoDisguises(t *testing.T) {
	clean := "The students were copying theses from the library"
	for _, d := range []string{
		"The studеnts wеrе сорying thеsеs frоm thе librаry",
		"The stu\u200Bdents were co\u00ADpy\u00ADing the\u2060ses from the li\u200Dbrary",
		"The   s t u d e n t s   w e r e   c o p y i n g   t h e s e s   from the library",
	} {
		if got, want := Words(d, nil), Words(clean, nil); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", d, got, want)
		}
	}
	if got := Words("Студенты списывали диссертации", nil); !slices.Equal(got, []string{"студенты", "списывали", "диссертации"}) {
		t.Errorf("Russian words changed: %q", got)
	}
}
