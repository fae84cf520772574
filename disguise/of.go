package disguise

// Of is a document's flags: those extraction found in its file (hidden
// text) merged with those Scan finds in its text. Spans are byte offsets of
// text, the text that is stored and shown. Every place that reads a
// document's text (the run, the upload, the live check) computes its flags
// here, so that they are a function of the document's bytes.
func Of(extracted []Flag, text string) []Flag {
	return Merge(extracted, Scan(text))
}
