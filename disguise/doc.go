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
// those of the clean copy; this package only reports them. It is pure:
// strings in, flags out.
package disguise
