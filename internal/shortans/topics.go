package shortans

import (
	"fmt"
	"strings"

	"github.com/plagd/plagd/internal/pangen"
)

// SplitTopics cuts every topic of at least twice words words into pieces of
// consecutive sentences of at least words words each (a short rest joins
// the last piece), named "name#1", "name#2"...: a long document (a language
// specification, a whole manual) then gives several questions, each piece
// on its own part of the subject. Shorter topics are kept whole.
func SplitTopics(topics []pangen.Topic, words int) []pangen.Topic {
	var out []pangen.Topic
	for _, t := range topics {
		if words <= 0 || t.Words() < 2*words {
			out = append(out, t)
			continue
		}
		var pieces []pangen.Topic
		cur, n := pangen.Topic{}, 0
		for _, s := range t.Sentences {
			cur.Sentences = append(cur.Sentences, s)
			if n += len(strings.Fields(s)); n >= words {
				pieces = append(pieces, cur)
				cur, n = pangen.Topic{}, 0
			}
		}
		if len(cur.Sentences) > 0 {
			last := &pieces[len(pieces)-1]
			last.Sentences = append(last.Sentences, cur.Sentences...)
		}
		for i := range pieces {
			pieces[i].Name = fmt.Sprintf("%s#%d", t.Name, i+1)
		}
		out = append(out, pieces...)
	}
	return out
}
