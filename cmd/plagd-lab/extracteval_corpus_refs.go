package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/plagd/plagd/internal/wordscore"
)

// refEngine is a reference PDF-to-text program: args gives its command line
// for a file, with the text on standard output.
type refEngine struct {
	name string
	path string
	args func(file string) []string
}

// referenceEngines finds the reference engines that are installed. pdftotext
// is needed (without it there is no reference for files without a true
// text); mutool is optional. Missing ones are returned as warnings that say
// how to install them.
func referenceEngines(fl corpusFlags) (engines []refEngine, warnings []string) {
	if fl.pdftotext != "" {
		if p := lookTool(fl.pdftotext); p != "" {
			engines = append(engines, refEngine{name: "pdftotext", path: p,
				args: func(f string) []string { return []string{"-enc", "UTF-8", f, "-"} }})
		} else {
			warnings = append(warnings, fmt.Sprintf("%s not found: files without a true text have no reference (apt-get install poppler-utils, or give --pdftotext PATH)", fl.pdftotext))
		}
	}
	if fl.mutool != "" {
		if p := lookTool(fl.mutool); p != "" {
			engines = append(engines, refEngine{name: "mutool", path: p,
				args: func(f string) []string { return []string{"draw", "-q", "-F", "txt", "-o", "-", f} }})
		} else {
			warnings = append(warnings, fmt.Sprintf("%s not found: MuPDF is not used as a second reference (apt-get install mupdf-tools, or give --mutool PATH)", fl.mutool))
		}
	}
	return engines, warnings
}

// lookTool is the full path of a program, or "" when it is not installed.
func lookTool(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// refCache keeps the reference engines' outputs under DIR/.ref, one file per
// PDF and engine, named after the PDF's path, size and modification time: a
// rerun reads them instead of running the engines, and a PDF made anew gets
// new entries. An engine's failure is cached as well (a ".err" file).
type refCache struct {
	dir     string // "" when caching is off
	enabled bool
}

func newRefCache(corpus string, enabled bool, errOut io.Writer) *refCache {
	c := &refCache{dir: filepath.Join(corpus, ".ref"), enabled: enabled}
	if enabled {
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			fmt.Fprintf(errOut, "plagd-lab: reference cache off (%v); give a writable --corpus folder to make reruns fast\n", err)
			c.enabled = false
		}
	}
	return c
}

// key names a PDF's entries: its path with "/" made "__", size and mtime.
func (c *refCache) key(rel string, info os.FileInfo, what string) string {
	var size, mtime int64
	if info != nil {
		size, mtime = info.Size(), info.ModTime().UnixNano()
	}
	name := strings.ReplaceAll(filepath.ToSlash(rel), "/", "__")
	return filepath.Join(c.dir, fmt.Sprintf("%s.%d.%d.%s", name, size, mtime, what))
}

// read returns a cached text, or ok false.
func (c *refCache) read(key string) (text string, errText string, ok bool) {
	if !c.enabled {
		return "", "", false
	}
	if data, err := os.ReadFile(key + ".txt"); err == nil {
		return string(data), "", true
	}
	if data, err := os.ReadFile(key + ".err"); err == nil {
		return "", string(data), true
	}
	return "", "", false
}

// write stores a text or an error message; a cache that cannot be written is
// only slower, so errors are ignored.
func (c *refCache) write(key, text, errText string) {
	if !c.enabled {
		return
	}
	if errText != "" {
		_ = os.WriteFile(key+".err", []byte(errText), 0o644)
		return
	}
	_ = os.WriteFile(key+".txt", []byte(text), 0o644)
}

// run is the engine's result for a file, from the cache or by running it.
func (c *refCache) run(ctx context.Context, eng refEngine, path, rel string, info os.FileInfo, timeout time.Duration) engineResult {
	key := c.key(rel, info, eng.name)
	text, errText, ok := c.read(key)
	if !ok {
		text, errText = runTool(ctx, eng.path, eng.args(path), timeout)
		c.write(key, text, errText)
	}
	if errText != "" {
		return engineResult{Outcome: "error", Reason: errText}
	}
	words := wordscore.Words(text)
	r := engineResult{Outcome: "ok", Words: len(words), words: words}
	if len(words) == 0 {
		r.Outcome = "empty"
	}
	return r
}

// runTool runs a program within the timeout and returns its standard output,
// or the first line of its error.
func runTool(ctx context.Context, path string, args []string, timeout time.Duration) (text, errText string) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Sprintf("%s: no answer within %.0f s", filepath.Base(path), timeout.Seconds())
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return "", fmt.Sprintf("%s: %v: %s", filepath.Base(path), err, msg)
	}
	return stdout.String(), ""
}

// producerOf is the Producer pdfinfo reads from a file's metadata, cached like
// the engines' texts, or "unknown".
func producerOf(ctx context.Context, pdfinfo, path, rel string, info os.FileInfo, c *refCache) string {
	if pdfinfo == "" {
		return "unknown"
	}
	key := c.key(rel, info, "pdfinfo")
	text, _, ok := c.read(key) // a file pdfinfo cannot read has no producer
	if !ok {
		var errText string
		text, errText = runTool(ctx, pdfinfo, []string{"-enc", "UTF-8", path}, 30*time.Second)
		c.write(key, text, errText)
	}
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, "Producer:"); ok {
			if v = strings.TrimSpace(v); v != "" {
				return producerFamily(v)
			}
		}
	}
	return "unknown"
}

// producerFamily shortens a Producer string to the program's name, so that
// versions of one program make one group: "pdfTeX-1.40.21" → "pdfTeX",
// "Microsoft® Word 2016" stays whole (no version digits at its end),
// "GPL Ghostscript 9.26" → "GPL Ghostscript".
func producerFamily(p string) string {
	p = strings.Join(strings.Fields(p), " ")
	cut := strings.IndexFunc(p, func(r rune) bool { return unicode.IsDigit(r) || r == '(' || r == ';' || r == ',' })
	if cut > 0 {
		p = p[:cut]
	}
	p = strings.TrimRight(p, " -_/.vV")
	if p == "" {
		return "unknown"
	}
	if len(p) > 40 {
		p = p[:40]
	}
	return p
}

// scriptOf names the writing system most of the reference's letters belong
// to: "latin", "cyrillic", "greek", "arabic", "hebrew", "cjk" (Han, kana,
// Hangul), "other", or "-" when there are no letters.
func scriptOf(words []string) string {
	counts := map[string]int{}
	for _, w := range words {
		for _, r := range w {
			if !unicode.IsLetter(r) {
				continue
			}
			switch {
			case unicode.Is(unicode.Latin, r):
				counts["latin"]++
			case unicode.Is(unicode.Cyrillic, r):
				counts["cyrillic"]++
			case unicode.Is(unicode.Greek, r):
				counts["greek"]++
			case unicode.Is(unicode.Arabic, r):
				counts["arabic"]++
			case unicode.Is(unicode.Hebrew, r):
				counts["hebrew"]++
			case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
				counts["cjk"]++
			default:
				counts["other"]++
			}
		}
	}
	best, n := "-", 0
	for _, s := range []string{"latin", "cyrillic", "greek", "arabic", "hebrew", "cjk", "other"} {
		if counts[s] > n {
			best, n = s, counts[s]
		}
	}
	return best
}
