package pangen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Topic is the prose of one subject: its sentences, in text order.
type Topic struct {
	Name      string
	Sentences []string
}

// Words is the number of words of the topic's sentences.
func (t Topic) Words() int {
	n := 0
	for _, s := range t.Sentences {
		n += len(strings.Fields(s))
	}
	return n
}

// Sentence lengths kept by Sentences: shorter ones are headings, captions
// and list items, longer ones run-ons of extraction.
const (
	minSentenceWords = 5
	maxSentenceWords = 60
)

// Sentences splits prose into sentences and keeps those that read as prose:
// 5 to 60 words, starting with a capital letter, ending with . ! or ?, mostly
// letters, and free of the marks of code (braces, semicolons, "::", "()",
// "=", "_"). Whitespace inside a sentence becomes one space. Repeated
// sentences are kept once (seen is shared across calls; nil: no memory):
// a sentence that occurs twice in the prose would be shared by two
// documents without being a case.
func Sentences(text string, seen map[string]bool) []string {
	var out []string
	for _, para := range strings.Split(text, "\n\n") {
		fields := strings.Fields(para)
		start := 0
		for i, f := range fields {
			if !endsSentence(f) || i+1 < len(fields) && !startsUpper(fields[i+1]) {
				continue
			}
			s := fields[start : i+1]
			start = i + 1
			if len(s) < minSentenceWords || len(s) > maxSentenceWords {
				continue
			}
			sent := strings.Join(s, " ")
			if !prose(sent) || seen != nil && seen[sent] {
				continue
			}
			if seen != nil {
				seen[sent] = true
			}
			out = append(out, sent)
		}
	}
	return out
}

func endsSentence(w string) bool {
	w = strings.TrimRight(w, `"')”’`)
	if len(w) < 2 {
		return false
	}
	switch w[len(w)-1] {
	case '.', '!', '?':
	default:
		return false
	}
	// Abbreviations: "e.g.", "i.e.", "Mr.", "etc." end no sentence.
	switch strings.ToLower(w) {
	case "e.g.", "i.e.", "mr.", "mrs.", "dr.", "etc.", "vs.", "st.", "no.", "cf.":
		return false
	}
	return true
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(w, `"'“‘(`))
	return unicode.IsUpper(r)
}

func prose(s string) bool {
	if !startsUpper(s) || strings.ContainsAny(s, "{};=_<>|\\#$@`[]*") || strings.Contains(s, "::") || strings.Contains(s, "()") {
		return false
	}
	letters, other := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == ' ' || r == ',' || r == '.' || r == '\'' || r == '-' || r == '’':
		default:
			other++
		}
	}
	return letters > 0 && other*20 <= letters
}

// repeatRun is the length of a shared word run that makes two sentences
// repeats of each other (DropRepeats).
const repeatRun = 8

// DropRepeats removes from the topics every sentence that shares a run of
// eight words with another sentence of any topic: licence paragraphs
// quoted in several manuals, the option lists of one command documented
// for several, boilerplate of generated pages. Such text would be shared by
// a pair's documents without an annotation, and an aligner that finds it
// would be charged a false alarm for finding real reuse. Shorter shared
// runs (stock phrases, names, terms) stay: they are the chance matches the
// corpus is for.
func DropRepeats(topics []Topic) []Topic {
	type loc struct{ t, s int }
	first := map[string]loc{}
	drop := map[loc]bool{}
	for ti, t := range topics {
		for si, s := range t.Sentences {
			ws := strings.Fields(strings.ToLower(s))
			seen := map[string]bool{}
			for i := 0; i+repeatRun <= len(ws); i++ {
				k := strings.Join(ws[i:i+repeatRun], " ")
				if seen[k] {
					continue
				}
				seen[k] = true
				if l, ok := first[k]; ok {
					drop[l], drop[loc{ti, si}] = true, true
				} else {
					first[k] = loc{ti, si}
				}
			}
		}
	}
	out := make([]Topic, len(topics))
	for ti, t := range topics {
		out[ti].Name = t.Name
		for si, s := range t.Sentences {
			if !drop[loc{ti, si}] {
				out[ti].Sentences = append(out[ti].Sentences, s)
			}
		}
	}
	return out
}
