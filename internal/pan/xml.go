package pan

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Feature names in PAN XML: truth files mark cases with "plagiarism",
// detectors write "detected-plagiarism". Like the script, readers match a
// feature whose name ends with the tag.
const (
	CaseTag      = "plagiarism"
	DetectionTag = "detected-plagiarism"
)

type xmlDocument struct {
	XMLName   xml.Name `xml:"document"`
	Reference *string  `xml:"reference,attr"`
	// Features are all child elements: the script takes any element with
	// a matching name attribute, whatever its tag (pan-id has a <featue>).
	Features []xmlFeature `xml:",any"`
}

type xmlFeature struct {
	Attrs []xml.Attr `xml:",any,attr"`
}

func (f xmlFeature) attr(name string) (string, bool) {
	for _, a := range f.Attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// ReadAnnotationsFile reads the features of one PAN XML file whose name
// ends with tag, as the script's extract_annotations_from_file does: a
// document without a reference attribute gives none, a feature without
// this_offset and this_length is skipped, and a feature is External when it
// has all three source attributes. Obfuscation is the feature's obfuscation
// attribute, else its type.
func ReadAnnotationsFile(path, tag string) ([]Annotation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc xmlDocument
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Reference == nil {
		return nil, nil
	}
	var out []Annotation
	for _, f := range doc.Features {
		name, _ := f.attr("name")
		if !strings.HasSuffix(name, tag) {
			continue
		}
		to, ok1 := f.attr("this_offset")
		tl, ok2 := f.attr("this_length")
		if !ok1 || !ok2 {
			continue
		}
		a := Annotation{This: *doc.Reference}
		if a.TOff, err = atoi(path, "this_offset", to); err != nil {
			return nil, err
		}
		if a.TLen, err = atoi(path, "this_length", tl); err != nil {
			return nil, err
		}
		sr, ok1 := f.attr("source_reference")
		so, ok2 := f.attr("source_offset")
		sl, ok3 := f.attr("source_length")
		if ok1 && ok2 && ok3 {
			a.Src, a.External = sr, true
			if a.SOff, err = atoi(path, "source_offset", so); err != nil {
				return nil, err
			}
			if a.SLen, err = atoi(path, "source_length", sl); err != nil {
				return nil, err
			}
		}
		a.Obfuscation, _ = f.attr("obfuscation")
		if a.Obfuscation == "" {
			a.Obfuscation, _ = f.attr("type")
		}
		out = append(out, a)
	}
	return out, nil
}

func atoi(path, what, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%s: %s %q is not a number", path, what, s)
	}
	return n, nil
}

// ReadAnnotations reads the XML files in dir and one level down, as the
// script does (glob dir/*.xml and dir/*/*.xml), keeping features whose name
// ends with tag.
func ReadAnnotations(dir, tag string) ([]Annotation, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*.xml"))
	files = append(files, more...)
	var out []Annotation
	for _, f := range files {
		as, err := ReadAnnotationsFile(f, tag)
		if err != nil {
			return nil, err
		}
		out = append(out, as...)
	}
	return out, nil
}

// Marker is the comment on the second line of every detection file plagd
// writes, so that a later run may replace its own files and no others.
const Marker = "<!-- plagd eval pan detections -->"

// Written reports whether the file at path was written by WriteDetections.
func Written(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 200)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(Marker))
}

// WriteDetections writes one PAN XML detection file: a document element
// whose reference is the suspicious document's file name, with one
// detected-plagiarism feature per detection (all detections must belong to
// that document).
func WriteDetections(path, reference string, dets []Annotation) error {
	return writeAnnotations(path, reference, DetectionTag, Marker+"\n", dets)
}

// WriteTruth writes one PAN XML truth file, as the PAN 2013-2015 corpora
// have per pair: one plagiarism feature per case, with its obfuscation
// attribute (all cases must belong to document reference; none: a pair
// without plagiarism).
func WriteTruth(path, reference string, cases []Annotation) error {
	return writeAnnotations(path, reference, CaseTag, "", cases)
}

func writeAnnotations(path, reference, tag, header string, anns []Annotation) error {
	anns = append([]Annotation(nil), anns...)
	sort.SliceStable(anns, func(i, j int) bool {
		if anns[i].TOff != anns[j].TOff {
			return anns[i].TOff < anns[j].TOff
		}
		return anns[i].Src < anns[j].Src
	})
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + header)
	fmt.Fprintf(&b, "<document reference=\"%s\">\n", esc(reference))
	for _, d := range anns {
		if d.This != reference {
			return fmt.Errorf("pan: annotation for %q written into the file of %q", d.This, reference)
		}
		fmt.Fprintf(&b, "  <feature name=\"%s\"", tag)
		if tag == CaseTag && d.Obfuscation != "" {
			fmt.Fprintf(&b, " obfuscation=\"%s\" type=\"artificial\"", esc(d.Obfuscation))
		}
		fmt.Fprintf(&b, " this_offset=\"%d\" this_length=\"%d\"", d.TOff, d.TLen)
		if d.External {
			fmt.Fprintf(&b, " source_reference=\"%s\" source_offset=\"%d\" source_length=\"%d\"", esc(d.Src), d.SOff, d.SLen)
		}
		b.WriteString("/>\n")
	}
	b.WriteString("</document>\n")
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&#34;")
}
