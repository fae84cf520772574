package archive

// Header is what the archive says about a document, as every list, report
// and API answer shows it: the integrator's key, the bibliographic fields
// and whether its text is restricted. Types that carry all six embed it
// (store.DocumentInput, report.Report and report.SourceReport,
// engine.RelatedDoc, the web server's report headers and pair-report
// heads), so that the fields are declared, tagged and read in one place;
// the JSON names and omitempty rules are the API's (docs/WEB.md,
// openapi.json). store.Document and engine.NearDuplicate declare the same
// fields one by one, because JSON keeps the order of fields and theirs
// differs from Header's (their Head methods convert); store.DocInfo,
// store.SimilarRow and store.FailedDoc show only some of them.
type Header struct {
	ExternalID string `json:"external_id,omitempty"`
	Title      string `json:"title,omitempty"`
	Author     string `json:"author,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Year       int    `json:"year,omitempty"`
	Restricted bool   `json:"restricted"`
}
