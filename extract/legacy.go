package extract

import (
	"strings"
	"unicode"

	"golang.org/x/text/encoding/charmap"
)

// legacyCandidates are the 8-bit encodings plagd's archives use, in the order
// that wins a tie. A tie means the bytes decode to equally plausible text,
// which in practice means identical text (German is the same in
// Windows-1250 and Windows-1252), so the order rarely matters; Windows-1250
// comes first because the archive is mostly Czech.
var legacyCandidates = []*charmap.Charmap{charmap.Windows1250, charmap.Windows1252, charmap.ISO8859_2}

// languageLetters are the non-ASCII lower-case letters of the languages
// expected in the archive. An encoding is plausible when the letters it
// produces are those of one language; the wrong encoding yields a mixture
// (Czech "ř" read as Windows-1252 is Scandinavian "ø" next to Czech "š").
var languageLetters = []string{
	"áčďéěíňóřšťúůýž",   // Czech
	"áäčďéíĺľňóôŕšťúýž", // Slovak
	"ąćęłńóśźż",         // Polish
	"äöüß",              // German
	"àâæçéèêëîïôœùûüÿ",  // French
	"áéíñóúü",           // Spanish
	"àèéìíîòóù",         // Italian
	"áâãàçéêíóôõú",      // Portuguese
	"áéíóöőúüű",         // Hungarian
	"åäöæø",             // Scandinavian
	"čćđšž",             // Croatian, Slovenian
	"ăâîşţ",             // Romanian
}

// detectLegacy picks the 8-bit encoding under which b reads most like text.
// Only bytes >= 0x80 matter: ASCII is the same in all candidates. Each
// candidate's decoding of them is scored:
//   - +1 per letter belonging to the best-fitting language's alphabet;
//   - -4 per byte the encoding leaves undefined or maps to a C1 control
//     (Windows-1250's "š" 0x9A is a control in ISO-8859-2);
//   - -2 per symbol inside a word (ISO-8859-2's "ť" 0xBB is "»" in
//     Windows-1250: "ą»astný" is not a word);
//   - -1 per capital letter following a lower-case one.
func detectLegacy(b []byte) *charmap.Charmap {
	const sampleMax = 1 << 20
	if len(b) > sampleMax {
		b = b[:sampleMax]
	}
	best, bestScore := legacyCandidates[0], 0.0
	for i, cm := range legacyCandidates {
		s := scoreLegacy(b, cm)
		if i == 0 || s > bestScore {
			best, bestScore = cm, s
		}
	}
	return best
}

func scoreLegacy(b []byte, cm *charmap.Charmap) float64 {
	var table [256]rune
	for i := range table {
		table[i] = cm.DecodeByte(byte(i))
	}
	at := func(i int) rune {
		if i < 0 || i >= len(b) {
			return ' '
		}
		return table[b[i]]
	}
	score := 0.0
	letters := map[rune]int{}
	total := 0
	for i, c := range b {
		if c < 0x80 {
			continue
		}
		r := table[c]
		switch {
		case r == unicode.ReplacementChar || (r >= 0x80 && r < 0xa0):
			score -= 4
		case unicode.IsLetter(r):
			letters[unicode.ToLower(r)]++
			total++
			if unicode.IsUpper(r) && unicode.IsLower(at(i-1)) {
				score--
			}
		case unicode.IsLetter(at(i-1)) && unicode.IsLetter(at(i+1)):
			score -= 2
		}
	}
	bestCovered := 0
	for _, alphabet := range languageLetters {
		covered := 0
		for r, n := range letters {
			if strings.ContainsRune(alphabet, r) {
				covered += n
			}
		}
		bestCovered = max(bestCovered, covered)
	}
	return score + float64(bestCovered)
}
