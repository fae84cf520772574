// Package reportpdf prints a similarity report as a PDF file that a teacher
// can hand to a student or a committee: the similarity index and the
// exclusions it was computed with, the sources, the document's text with
// every passage highlighted in its source's colour and numbered, and each
// source's matching passages side by side with the document's, on
// numbered pages that say who generated them and when.
//
// The file is made on the server, without a browser: the pages are laid
// out here (a small typesetter that flows words into lines and lines into
// pages, in the Go fonts, which cover Latin, Greek and Cyrillic) and
// written by github.com/signintech/gopdf. The package is pure: a filtered
// report.Report and a few words about it in, bytes out, no files and no
// database; package web serves the result.
package reportpdf
