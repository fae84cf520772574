package extract

import (
	"mime"
	"path/filepath"
	"slices"
	"strings"
)

// Format is a document format plagd knows by name. Its value is a short,
// stable identifier (used in logs and the API); Name gives the human name.
type Format string

const (
	FormatText Format = "text"
	FormatPDF  Format = "pdf"
	FormatDOCX Format = "docx"
	FormatODT  Format = "odt"
	FormatRTF  Format = "rtf"
	FormatHTML Format = "html"
	// FormatDOC is the Word 97-2003 binary format (an OLE2 container).
	// Archives hold many of these, so it gets its own "not supported" message
	// rather than a generic "binary data".
	FormatDOC Format = "doc"
	// FormatBinary is anything recognised as not being a document: images,
	// archives, executables, other office files.
	FormatBinary Format = "binary"
)

// formatInfo is the single table of names, extensions and MIME types, shared
// by detection, by ingest (which extensions to pick up, what content_type to
// store) and by error messages.
type formatInfo struct {
	name  string
	exts  []string // lower case, with the dot; the first is canonical
	mimes []string // the first is the one stored by ContentType
}

var formats = map[Format]formatInfo{
	FormatText: {"plain text", []string{".txt", ".text", ".md"}, []string{"text/plain", "text/markdown"}},
	FormatPDF:  {"PDF", []string{".pdf"}, []string{"application/pdf"}},
	FormatDOCX: {"Word (DOCX)", []string{".docx"}, []string{"application/vnd.openxmlformats-officedocument.wordprocessingml.document"}},
	FormatODT: {"OpenDocument text (ODT)", []string{".odt", ".oth", ".ott", ".odm"}, []string{"application/vnd.oasis.opendocument.text",
		"application/vnd.oasis.opendocument.text-web", "application/vnd.oasis.opendocument.text-template",
		"application/vnd.oasis.opendocument.text-master"}},
	FormatRTF:  {"RTF", []string{".rtf"}, []string{"application/rtf", "text/rtf"}},
	FormatHTML: {"HTML", []string{".html", ".htm"}, []string{"text/html", "application/xhtml+xml"}},
	FormatDOC:  {"Word 97-2003 (DOC)", []string{".doc"}, []string{"application/msword"}},
}

// extMIME names the extensions whose MIME type is not their format's first.
var extMIME = map[string]string{".md": "text/markdown",
	".oth": "application/vnd.oasis.opendocument.text-web", ".ott": "application/vnd.oasis.opendocument.text-template",
	".odm": "application/vnd.oasis.opendocument.text-master"}

// documentFormats are the formats whose files ingest picks up by default, in
// the order Extensions lists them.
var documentFormats = []Format{FormatText, FormatPDF, FormatDOCX, FormatODT, FormatRTF, FormatHTML}

// Name is the format's name for people, e.g. "Word (DOCX)".
func (f Format) Name() string {
	if fi, ok := formats[f]; ok {
		return fi.name
	}
	return string(f)
}

// Extensions lists the file extensions of the document formats plagd handles
// or will handle (".txt", ".pdf", ...). Ingest uses it as its default filter,
// so that a folder of theses with stray images and scripts imports cleanly.
func Extensions() []string {
	var out []string
	for _, f := range documentFormats {
		out = append(out, formats[f].exts...)
	}
	return out
}

// ContentType returns the MIME type for a file name: from plagd's own table
// for document formats (so the stored value does not depend on the host's
// /etc/mime.types), else from mime.TypeByExtension without parameters, else "".
// Parameters are dropped on purpose: Go reports ".txt" as "charset=utf-8",
// which would be a false claim about a Windows-1250 file.
func ContentType(filename string) string {
	ext := strings.ToLower(filepath.Ext(filename))
	if ext == "" {
		return ""
	}
	if t, ok := extMIME[ext]; ok {
		return t
	}
	if f := formatByExt(ext); f != "" {
		return formats[f].mimes[0]
	}
	if t := mime.TypeByExtension(ext); t != "" {
		if mt, _, err := mime.ParseMediaType(t); err == nil {
			return mt
		}
	}
	return ""
}

func formatByExt(ext string) Format {
	for f, fi := range formats {
		if slices.Contains(fi.exts, ext) {
			return f
		}
	}
	return ""
}

func formatByMIME(contentType string) Format {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt, _, _ = strings.Cut(contentType, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	for f, fi := range formats {
		if slices.Contains(fi.mimes, mt) {
			return f
		}
	}
	return ""
}
