// Package testtext makes texts for tests whose expectations depend on
// exactly which words two texts share: made-up words, uniform over a large
// vocabulary, so that texts share words only where a test copies them and
// a copied passage has exactly the expected ends. The passage, report and
// engine tests use it.
package testtext
