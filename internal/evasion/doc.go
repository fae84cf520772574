// Package evasion is plagd's evasion set: the keystroke-level tricks that
// hide a copied text from a checker while a reader sees the same text
// (look-alike letters of other scripts, invisible characters, letter
// spacing), each a pure function from a clean text to a disguised one, and
// the clean essays they are applied to. The measurement (similarity of the
// disguised essay against the same archive as the clean one, and whether
// package disguise flags it) is in package report's evasion test and in
// docs/QUALITY.md, section "Evasion".
package evasion
