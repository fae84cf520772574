// Command lexgen writes english.lex and tiers.go, the English lexicon of
// package wordseg, from SCOWL ("Spell Checker Oriented Word Lists", Kevin
// Atkinson), as Debian's package scowl installs it in /usr/share/dict/scowl.
// It is run by go generate in package wordseg; its output is committed, so
// builds do not need the package. It also copies SCOWL's copyright notice,
// which its licence asks to travel with every copy.
//
// SCOWL sorts English words by how common they are into sizes 10 (about the
// 4,000 commonest word forms), 20, 35, 40, 50, 55, 60 and 70 (the size of
// Debian's wamerican-large); a word's tier is the first size that lists it,
// American, British or common to both (english-, american- and
// british-words; abbreviations, proper names and words in capitals are
// other files, left out, but for the capitalised words of sizes 10 to 35:
// months, languages, nationalities). Kept are words of ASCII letters of at
// most wordseg.MaxWord letters, lower-cased; of one letter, only "a" and
// "i"; the pieces of common contractions ("don", "t") are words of the
// rarest tier.
//
// tiers.go holds each tier's cost, Zipf's law on the rank of the tier's
// last word: a word of rank r among N has probability about
// 1/(r ln N), so it costs log2(r) + log2(ln N) bits, in tenths of a bit.
//
// english.lex is the words of each tier, tier after tier, separated by a
// zero byte; the words of a tier sorted and front-coded (one byte: 32 + the
// length of the prefix shared with the previous word; then the rest of the
// word, a letter c as the byte c-'a'+1); all compressed with DEFLATE.
package main
