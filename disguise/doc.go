// Package disguise finds the keystroke-level tricks that hide copied text
// from a checker while a reader sees nothing unusual: letters of another
// script that look alike (Cyrillic "а" in a Latin word), invisible
// characters between letters (zero-width spaces, soft hyphens), letters
// spaced apart, and text hidden in the file (white or tiny text, found by
// package extract). Each finding is a Flag on the document, stored with its
// text by the run that indexes it and shown at the top of its report.
//
// Finding a trick and undoing it are separate jobs: package invindex's
// tokenizer undoes them, so chunks and passages of a disguised copy are
// those of the clean copy; Scan reports them. What both need to agree on
// lives here, once:
//
//   - Prototype: the ASCII letters a letter looks like, from Unicode
//     Technical Standard #39's confusables data ("Unicode Security
//     Mechanisms", Davis and Suignard), generated into prototypes.go by
//     internal/protogen (go generate) and committed;
//   - IsInvisible: the format characters a reader does not see;
//   - SpacedRuns, with SingleLetter, OneSpace and WideGap: which single
//     letters form a letter-spaced word, and SpacedWords: how a run whose
//     words were spaced like its letters splits into words (subpackage
//     wordseg, an English lexicon);
//   - Plain: the text with its disguises undone, for tokenisations that
//     keep words as strings (package related stems them).
//
// Two policies differ on purpose. The tokenizer maps every look-alike to
// its prototype, context-free: its hashes only have to agree, and a
// context-free map cannot be split by mixing scripts. Scan and Plain
// judge a word in its context (the text's dominant script, the words
// around it), because a flag is an accusation and a stemmer needs the
// genuine Russian word, not its Latin skeleton.
//
// The package is pure: strings in, flags and strings out.
package disguise
