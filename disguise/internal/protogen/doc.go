// Command protogen writes disguise/prototypes.go: for every letter that can
// appear in a case-folded, NFKC-normalised word and looks like one to three
// ASCII letters, that ASCII prototype. It is run by go generate in package
// disguise; its output is committed, so builds do not need it.
//
// The look-alike data is Unicode Technical Standard #39's confusables table
// (confusables.txt, "Unicode Security Mechanisms", Davis and Suignard),
// through github.com/mtibben/confusables, which embeds it and computes the
// TR39 skeleton. A letter's prototype is the skeleton of its case fold if
// that is ASCII letters, else the skeleton of its upper case (Cyrillic "в"
// looks like no Latin letter but "В" looks like "B"; an attacker writing
// "Bank" with a Cyrillic capital leaves "в" after folding). An upper-case
// look-alike of "I" stands for "i" (its skeleton is "l", the prototype of
// the I/l/1 class, but a capital I folds to "i").
package main
