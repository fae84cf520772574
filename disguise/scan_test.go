package disguise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

func flagOf(fs []Flag, k Kind) (Flag, bool) {
	for _, f := range fs {
		if f.Kind == k {
			return f, true
		}
	}
	return Flag{}, false
}

const clean = "Plagiarism is the representation of another author's language, thoughts, ideas, or expressions as one's own original work. " +
	"In educational contexts, there are differing definitions of plagiarism depending on the institution."

func TestScanFinds(t *testing.T) {
	cyr := strings.NewReplacer("a", "а", "e", "е", "o", "о", "c", "с", "p", "р", "x", "х").Replace(clean)
	zw := strings.Join(strings.Split(clean, ""), "\u200B")
	shy := strings.ReplaceAll(clean, "ti", "t\u00ADi")
	spacedWords := strings.Fields("the representation of another author's language and thoughts")
	for i, w := range spacedWords {
		spacedWords[i] = strings.Join(strings.Split(w, ""), " ")
	}
	spaced := "Plagiarism is " + strings.Join(spacedWords, "   ") + " " + clean
	cases := []struct {
		name  string
		text  string
		kind  Kind
		count int
	}{
		{"cyrillic", cyr, Confusable, countChanged(clean, cyr)},
		{"zero-width", zw, Invisible, -1},
		{"soft hyphens", shy, Invisible, strings.Count(shy, "\u00AD")},
		{"letter-spaced", spaced, LetterSpaced, len(spacedWords)},
		{"latin in russian", "Это пpивет и пpимер, сказал он.", Confusable, 2},
		{"greek", "The ρrοblem is ναlid.", Confusable, 4},
		{"bidi", "co\u202Epy pa\u202Cper", Invisible, 2},
	}
	for _, c := range cases {
		fs := Scan(c.text)
		f, ok := flagOf(fs, c.kind)
		if !ok {
			t.Errorf("%s: no %s flag in %+v", c.name, c.kind, fs)
			continue
		}
		if c.count >= 0 && f.Count != c.count {
			t.Errorf("%s: count %d, want %d", c.name, f.Count, c.count)
		}
		if len(f.Spans) == 0 || f.Detail == "" {
			t.Errorf("%s: flag without spans or detail: %+v", c.name, f)
		}
		for _, s := range f.Spans {
			if s.Start < 0 || s.End > len(c.text) || s.Start >= s.End {
				t.Errorf("%s: bad span %+v", c.name, s)
			}
		}
		if len(fs) != 1 {
			t.Errorf("%s: want only a %s flag, got %+v", c.name, c.kind, fs)
		}
	}
}

// countChanged counts the runes of b that differ from a's (same length in runes).
func countChanged(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for i := range ra {
		if ra[i] != rb[i] {
			n++
		}
	}
	return n
}

// TestScanClean: nothing is flagged in ordinary text of many languages,
// with its legitimate invisible characters (Persian and Hindi joiners, a
// CJK variation selector, emoji sequences, non-breaking spaces, a single
// soft hyphen), nor in the repository's sample corpus, nor in the licence
// texts the system ships.
func TestScanClean(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	more, _ := filepath.Glob("../samples/pan-id/*/*.txt")
	files = append(files, more...)
	lic, _ := filepath.Glob("/usr/share/common-licenses/*")
	files = append(files, lic...)
	if len(files) < 10 {
		t.Fatalf("only %d clean files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a directory or an unreadable licence file
		}
		if fs := Scan(string(b)); len(fs) != 0 {
			t.Errorf("%s: flagged %+v", f, fs)
		}
	}
}

// TestScanProperties: on random clean text in several scripts Scan flags
// nothing; disguising its Latin words with any trick is flagged with the
// right kind; Scan never panics on random bytes.
func TestScanProperties(t *testing.T) {
	r := testseed.Rand(t)
	vocab := map[string][]string{
		"en": strings.Fields("the of and a to in is was he for it with as his on be at by I this had not are but from or have an they which one you were all we her she there would their will when who him been has more if no out do so can what up said about other into than its time only could new them man some these then two first may any like now my such make over our even most me state after also made many did must before back see through way where get much go well your know should down work year because come people just say each those take day good how long"),
		"cs": strings.Fields("a se na že to je v s z do o i k jako ale by tak pro jsem jsou byl která které který když už podle jen mezi práce příliš žluťoučký kůň úpěl ďábelské ódy škola ústav výzkum"),
		"ru": strings.Fields("и в не на я быть он с что а по это она этот к но они мы как из у который то за свой весь год от так о для ты же все тот мочь вы человек такой его сказать только или ещё бы себя один как уже до время если сам когда другой вот говорить наш мой знать стать при чтобы дело жизнь кто первый очень два день её новый рука даже во со раз где там под можно ну какой после их работа без самый потом надо хотеть ли слово идти большой должен место иметь ничто"),
		"el": strings.Fields("και το η της του να σε με για που τα από ο στην είναι δεν θα οι στο ένα τον των μια αλλά στη ως πιο κατά όπως μετά έχει τη Σίσυφος πέτρα εξίσωση ψυχή"),
		"de": strings.Fields("der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie einem über einen so zum war haben nur oder aber vor zur bis mehr durch man sein wurde sei Straße Größe schön Übung Ärger"),
		"id": strings.Fields("yang dan di ini dengan untuk dari dalam tidak akan pada juga ke karena tersebut bisa ada mereka lebih kata tahun sudah saya oleh menjadi penelitian sekolah"),
		"fr": strings.Fields("le de un être et à il avoir ne je son que se qui ce dans en du elle au pour pas œuvre cœur ﬁn ﬂeur déjà été très"),
	}
	langs := []string{"en", "cs", "ru", "el", "de", "id", "fr"}
	seps := []string{" ", " ", " ", " ", ", ", ". ", "\u00A0", "\n", " — "}
	for i := 0; i < 300; i++ {
		lang := langs[r.IntN(len(langs))]
		v := vocab[lang]
		var sb strings.Builder
		for n := 50 + r.IntN(400); n > 0; n-- {
			sb.WriteString(v[r.IntN(len(v))])
			sb.WriteString(seps[r.IntN(len(seps))])
		}
		text := sb.String()
		if fs := Scan(text); len(fs) != 0 {
			t.Fatalf("%s text flagged: %+v\n%s", lang, fs, text)
		}
		if lang == "en" {
			dis := strings.NewReplacer("a", "а", "o", "о").Replace(text)
			if _, ok := flagOf(Scan(dis), Confusable); !ok && dis != text {
				t.Fatalf("Cyrillic look-alikes not flagged:\n%s", dis)
			}
			dis = strings.ReplaceAll(text, "e", "e\u200B")
			if _, ok := flagOf(Scan(dis), Invisible); !ok && strings.Count(dis, "e\u200B") > 4 {
				t.Fatalf("zero-width spaces not flagged:\n%q", dis)
			}
		}
		b := []byte(text)
		for k := 0; k < 20 && len(b) > 0; k++ {
			b[r.IntN(len(b))] = byte(r.Uint32())
		}
		Scan(string(b))
	}
}
