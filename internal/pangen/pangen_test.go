package pangen

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/plagd/plagd/internal/testseed"
)

// testTopics makes topics of distinct made-up sentences over a shared
// vocabulary per topic, so that documents share words but no sentence.
func testTopics(seed uint64, topics, sentences int) []Topic {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []Topic
	for t := range topics {
		vocab := make([]string, 300)
		for i := range vocab {
			vocab[i] = fmt.Sprintf("w%dx%d", t, i)
		}
		tp := Topic{Name: fmt.Sprint("topic", t)}
		for s := range sentences {
			n := 8 + rng.IntN(20)
			ws := []string{fmt.Sprintf("S%d_%d", t, s)}
			for range n {
				ws = append(ws, vocab[rng.IntN(len(vocab))])
			}
			tp.Sentences = append(tp.Sentences, strings.Join(ws, " ")+".")
		}
		out = append(out, tp)
	}
	return out
}

func smallOptions(seed uint64) Options {
	return Options{Seed: seed, Verbatim: 12, Random: 5, Synonym: 5, Reorder: 5, NoPlagiarism: 4,
		MinCaseWords: 30, MaxCaseWords: 300, MinOwnWords: 100, MaxOwnWords: 400}
}

func TestGenerate(t *testing.T) {
	{
		seed := testseed.Seed(t)
		topics := testTopics(seed, 4, 400)
		c, err := Generate(topics, smallOptions(seed))
		if err != nil {
			t.Fatal(err)
		}
		c2, _ := Generate(topics, smallOptions(seed))
		if !reflect.DeepEqual(c, c2) {
			t.Fatalf("seed %d: not deterministic", seed)
		}
		texts := map[string]string{}
		for _, d := range append(append([]Doc{}, c.Susp...), c.Src...) {
			texts[d.Name] = d.Text
		}
		cases := map[string]int{}
		for _, p := range c.Pairs {
			if p.Section == Section(NoPlagiarism) && len(p.Cases) > 0 {
				t.Errorf("seed %d: no-plagiarism pair %s has cases", seed, p.Susp)
			}
			// Sentences (marked by their first word) are shared only inside cases.
			inCase := map[string]bool{}
			for _, a := range p.Cases {
				cases[a.Obfuscation]++
				susp := []rune(texts[a.This])
				src := []rune(texts[a.Src])
				if a.TOff < 0 || a.TOff+a.TLen > len(susp) || a.SOff < 0 || a.SOff+a.SLen > len(src) {
					t.Fatalf("seed %d: case out of range: %+v", seed, a)
				}
				st, ss := string(susp[a.TOff:a.TOff+a.TLen]), string(src[a.SOff:a.SOff+a.SLen])
				if a.Obfuscation == None && st != ss {
					t.Errorf("seed %d: verbatim case differs:\n%q\n%q", seed, st, ss)
				}
				if a.Obfuscation == Reorder && (st == ss || len(st) != len(ss)) {
					t.Errorf("seed %d: reordered case not a reordering:\n%q\n%q", seed, st, ss)
				}
				for _, f := range strings.Fields(ss) {
					if strings.HasPrefix(f, "S") {
						inCase[f] = true
					}
				}
			}
			own := map[string]bool{}
			for _, f := range strings.Fields(texts[p.Src]) {
				if strings.HasPrefix(f, "S") && !inCase[f] {
					own[f] = true
				}
			}
			// The suspicious document's own text: its cases blanked out (a
			// random edit may put a marker word, as a topic word, in a case).
			susp := []rune(texts[p.Susp])
			for _, a := range p.Cases {
				for i := a.TOff; i < a.TOff+a.TLen; i++ {
					susp[i] = ' '
				}
			}
			for _, f := range strings.Fields(string(susp)) {
				if own[f] {
					t.Errorf("seed %d: pair %s/%s shares sentence %s outside a case", seed, p.Susp, p.Src, f)
				}
			}
		}
		if cases[None] != 12 || cases[Random] != 5 || cases[Synonym] != 5 || cases[Reorder] != 5 {
			t.Errorf("seed %d: cases %v", seed, cases)
		}
	}
}

func TestSentencesAndRepeats(t *testing.T) {
	text := "Intro\n\nThe borrow checker compares scopes to determine whether all borrows are valid. " +
		"It is e.g. what rejects this program at compile time. fn main() { let x = 5; } is code, not prose.\n\n" +
		"Short one. The borrow checker compares scopes to determine whether all borrows are valid."
	got := Sentences(text, map[string]bool{})
	want := []string{
		// The second sentence runs into code ("fn" starts no sentence) and is dropped.
		"The borrow checker compares scopes to determine whether all borrows are valid.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sentences = %q, want %q", got, want)
	}
	topics := []Topic{
		{"a", []string{"One two three four five six seven eight nine ten.", "Alpha beta gamma delta."}},
		{"b", []string{"Zero one two three four five six seven eight nine.", "Delta gamma beta alpha."}},
	}
	kept := DropRepeats(topics)
	if !reflect.DeepEqual(kept[0].Sentences, []string{"Alpha beta gamma delta."}) || !reflect.DeepEqual(kept[1].Sentences, []string{"Delta gamma beta alpha."}) {
		t.Errorf("DropRepeats = %+v", kept)
	}
}
