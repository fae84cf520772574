// Package wordscore measures how well extracted text matches the true text,
// word by word: the measure of docs/EXTRACTION.md, shared by the extraction
// quality test and plagd-lab extract-eval so that both report the same numbers,
// with the fixtures manifest they both read (manifest.go).
package wordscore
