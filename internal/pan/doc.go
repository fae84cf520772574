// Package pan evaluates plagd on corpora in the format of the PAN plagiarism
// detection competitions (pan.webis.de): it reads the corpora (the 2009-2011
// external-detection layout and the 2013-2015 text-alignment layout), reads
// and writes the PAN XML annotations, computes the official PAN measures
// (precision, recall, granularity and plagdet, macro- and micro-averaged)
// and document-level source retrieval.
//
// The measures are a line-by-line port of the official script
// pan-measures.py (Potthast et al., webis.de, v1.3; see
// ../shared/corpora/pan-id/), including its corner cases; a test runs the
// script on the same annotations and compares to 1e-9.
package pan
