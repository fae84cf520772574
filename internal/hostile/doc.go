// Package hostile builds the files that once hurt plagd, and many more like
// them: small documents that cost far more than they weigh (issue 14). Every
// file is generated in memory and deterministically, so that tests anywhere
// (extract, web, daemon) can feed them to the code under test without a
// megabyte committed to the repository.
//
// One constructor per reproduction of the issue:
//
//	AbsurdXrefPDF           item 0: an xref subsection starting at object 2^34
//	SelfListingPageTreePDF  item 1: /Kids [2 0 R 4 0 R 2 0 R], a form drawing itself
//	BadHexPDF               item 1b: a parse error that quotes raw bytes
//	BadHexContentPDF        item 1b in a page's content, with escapes and bidi
//	NestedXObjectsPDF       item 2: forms nested depth deep, each drawing the next fan times
//	SharedStreamPDF         item 3: pages sharing one content stream of many glyphs
//	HugeCommentDOCX         item 4: a DOCX whose document.xml holds one huge comment
//
// and Mutations, a corpus of malformed PDF, DOCX and ODT files made from
// valid ones: truncations, flipped bytes, absurd numbers in xref tables,
// trailers, stream and object-stream headers, and absurd sizes, counts and
// offsets in zip headers.
package hostile
