package pan

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Layouts of PAN corpora.
const (
	// External is the PAN 2009-2011 external detection layout:
	// suspicious-documents/ (truth XML beside each .txt) and
	// source-documents/, either possibly split into partNN folders.
	External = "external-detection"
	// TextAlignment is the PAN 2013-2015 text alignment layout: susp/, src/,
	// and section folders (01-no-plagiarism, 02-no-obfuscation, ...) with
	// one truth XML per pair "suspicious-documentX-source-documentY.xml";
	// the pairs to align are listed in "pairs" files ("susp src" per line).
	TextAlignment = "text-alignment"
)

// Doc is a document of a corpus.
type Doc struct {
	Name string // file name: the reference in PAN XML
	Path string
	// Rel is the path below its folder (SuspDir or SrcDir), with slashes.
	Rel string
}

// Pair is a (suspicious, source) pair a text-alignment corpus asks to align.
type Pair struct {
	Susp, Src string // file names
	Section   string // folder of its truth file ("" when none was found)
}

// Corpus is a PAN corpus on disk.
type Corpus struct {
	Dir    string
	Layout string
	// SuspDir and SrcDir hold the suspicious and the source documents.
	SuspDir, SrcDir string
	Susp, Src       []Doc // sorted by name
	// Cases are the truth annotations (external ones have a source).
	Cases []Annotation
	// TruthDir is the folder to give the official script as -p (External
	// only; TextAlignment truth is spread over the section folders).
	TruthDir string
	// Pairs (TextAlignment only) are the pairs to align.
	Pairs []Pair

	susp, src map[string]Doc
}

// Open reads the corpus in dir, detecting its layout.
func Open(dir string) (*Corpus, error) {
	c := &Corpus{Dir: dir}
	switch {
	case isDir(filepath.Join(dir, "suspicious-documents")) && isDir(filepath.Join(dir, "source-documents")):
		c.Layout = External
		c.SuspDir, c.SrcDir = filepath.Join(dir, "suspicious-documents"), filepath.Join(dir, "source-documents")
	case isDir(filepath.Join(dir, "susp")) && isDir(filepath.Join(dir, "src")):
		c.Layout = TextAlignment
		c.SuspDir, c.SrcDir = filepath.Join(dir, "susp"), filepath.Join(dir, "src")
	default:
		return nil, fmt.Errorf("%s is not a PAN corpus: want suspicious-documents/ and source-documents/ (PAN 2009-2011) or susp/ and src/ (PAN 2013-2015)", dir)
	}
	var err error
	if c.Susp, err = listTexts(c.SuspDir); err != nil {
		return nil, err
	}
	if c.Src, err = listTexts(c.SrcDir); err != nil {
		return nil, err
	}
	c.susp, c.src = byName(c.Susp), byName(c.Src)
	if len(c.susp) != len(c.Susp) || len(c.src) != len(c.Src) {
		return nil, errors.New("pan: two documents of one folder have the same file name")
	}
	if c.Layout == External {
		err = c.readExternalTruth()
	} else {
		err = c.readAlignmentTruth()
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// SuspDoc and SrcDoc look documents up by file name.
func (c *Corpus) SuspDoc(name string) (Doc, bool) { d, ok := c.susp[name]; return d, ok }
func (c *Corpus) SrcDoc(name string) (Doc, bool)  { d, ok := c.src[name]; return d, ok }

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func listTexts(dir string) ([]Doc, error) {
	var out []Doc
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(e.Name(), ".") && p != dir {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".txt") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, Doc{Name: e.Name(), Path: p, Rel: filepath.ToSlash(rel)})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

func byName(docs []Doc) map[string]Doc {
	m := make(map[string]Doc, len(docs))
	for _, d := range docs {
		m[d.Name] = d
	}
	return m
}

// readExternalTruth reads the XML beside each suspicious document.
func (c *Corpus) readExternalTruth() error {
	c.TruthDir = c.SuspDir
	for _, d := range c.Susp {
		x := strings.TrimSuffix(d.Path, filepath.Ext(d.Path)) + ".xml"
		if _, err := os.Stat(x); errors.Is(err, fs.ErrNotExist) {
			continue // a document without truth has no cases
		}
		as, err := ReadAnnotationsFile(x, CaseTag)
		if err != nil {
			return err
		}
		c.Cases = append(c.Cases, as...)
	}
	return nil
}

// readAlignmentTruth reads the pairs files and the truth XML of each pair.
func (c *Corpus) readAlignmentTruth() error {
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return err
	}
	seen := map[[2]string]int{}
	addPairs := func(file, section string) error {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			fields := strings.Fields(sc.Text())
			if len(fields) == 0 {
				continue
			}
			if len(fields) != 2 {
				return fmt.Errorf("%s:%d: want \"suspicious-document source-document\"", file, n)
			}
			k := [2]string{fields[0], fields[1]}
			if i, ok := seen[k]; ok {
				if c.Pairs[i].Section == "" {
					c.Pairs[i].Section = section
				}
				continue
			}
			seen[k] = len(c.Pairs)
			c.Pairs = append(c.Pairs, Pair{Susp: fields[0], Src: fields[1], Section: section})
		}
		return sc.Err()
	}
	var sections []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "susp" && e.Name() != "src" && !strings.HasPrefix(e.Name(), ".") {
			sections = append(sections, e.Name())
			if p := filepath.Join(c.Dir, e.Name(), "pairs"); fileExists(p) {
				if err := addPairs(p, e.Name()); err != nil {
					return err
				}
			}
		}
	}
	if p := filepath.Join(c.Dir, "pairs"); fileExists(p) {
		if err := addPairs(p, ""); err != nil {
			return err
		}
	}
	if len(c.Pairs) == 0 {
		return fmt.Errorf("%s: no pairs file (in the corpus folder or its section folders)", c.Dir)
	}
	for i := range c.Pairs {
		p := &c.Pairs[i]
		if _, ok := c.susp[p.Susp]; !ok {
			return fmt.Errorf("pairs: %s is not in %s", p.Susp, c.SuspDir)
		}
		if _, ok := c.src[p.Src]; !ok {
			return fmt.Errorf("pairs: %s is not in %s", p.Src, c.SrcDir)
		}
		name := PairFileName(p.Susp, p.Src)
		for _, s := range sections {
			x := filepath.Join(c.Dir, s, name)
			if !fileExists(x) {
				continue
			}
			if p.Section == "" {
				p.Section = s
			}
			as, err := ReadAnnotationsFile(x, CaseTag)
			if err != nil {
				return err
			}
			for _, a := range as {
				if a.Obfuscation == "" {
					a.Obfuscation = sectionKind(s)
				}
				c.Cases = append(c.Cases, a)
			}
			break
		}
	}
	return nil
}

// PairFileName is the XML file name PAN 2013-2015 uses for a pair:
// "suspicious-document00001-source-document00002.xml".
func PairFileName(susp, src string) string {
	return strings.TrimSuffix(susp, filepath.Ext(susp)) + "-" + strings.TrimSuffix(src, filepath.Ext(src)) + ".xml"
}

// sectionKind turns a section folder name into an obfuscation name:
// "03-random-obfuscation" → "random-obfuscation".
func sectionKind(s string) string {
	if i := strings.IndexByte(s, '-'); i > 0 && strings.Trim(s[:i], "0123456789") == "" {
		return s[i+1:]
	}
	return s
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Kind is the obfuscation type of a case: its obfuscation attribute, else
// its type attribute, else "unknown".
func Kind(a Annotation) string {
	if a.Obfuscation != "" {
		return a.Obfuscation
	}
	return "unknown"
}
