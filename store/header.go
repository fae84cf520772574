package store

// Header is what the archive says about a document, as every list, report
// and API answer shows it: the integrator's key, the bibliographic fields
// and whether its text is restricted. Types that show a document embed it,
// so that the six fields are declared, tagged and read in one place; their
// JSON names and omitempty rules are the API's (docs/WEB.md, openapi.json).
type Header struct {
	ExternalID string `json:"external_id,omitempty"`
	Title      string `json:"title,omitempty"`
	Author     string `json:"author,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Year       int    `json:"year,omitempty"`
	Restricted bool   `json:"restricted"`
}
