package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// This file is the one exception to the package's purity: OCR of scanned
// PDF pages runs two programs, pdftoppm (poppler-utils) to render a page to
// an image and tesseract to recognise it, through a temporary directory. Go
// has no OCR of its own worth the name, and doing it out of process also
// means a crash or a runaway of either program costs one document. It only
// happens when Options.OCR.Tesseract is set; nothing else in the package
// runs programs or touches files.

// ocrDPI is the rendering resolution: tesseract reads body text best at
// 300 dpi, and a lower one loses diacritics.
const ocrDPI = 300

// defaultOCRTimeout bounds OCR when Options.Timeout is 0: a program that
// hangs must not hold a node forever.
const defaultOCRTimeout = 10 * time.Minute

// ocrPages recognises the given pages (0-based) of a PDF and returns their
// text by page. The deadline is Options.Timeout (runParser gives up on the
// parser at the same time; the context makes sure the programs die too).
func ocrPages(content []byte, pages []int, opt Options) (map[int]string, error) {
	tess, err := exec.LookPath(opt.OCR.Tesseract)
	if err != nil {
		return nil, noTextLayer(len(pages), fmt.Sprintf("OCR is enabled but the tesseract program (%q) was not found", opt.OCR.Tesseract))
	}
	render, err := exec.LookPath("pdftoppm")
	if err != nil {
		return nil, noTextLayer(len(pages), "OCR is enabled but rendering the pages needs the pdftoppm program (poppler-utils), which is not installed")
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = defaultOCRTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	dir, err := os.MkdirTemp("", "plagd-ocr-")
	if err != nil {
		return nil, newError(ErrNoTextLayer, "no text layer, and OCR could not create a temporary directory: %v", err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(src, content, 0o600); err != nil {
		return nil, newError(ErrNoTextLayer, "no text layer, and OCR could not write a temporary file: %v", err)
	}
	langs := strings.Join(opt.OCR.Languages, "+")
	if langs == "" {
		langs = "ces+eng"
	}
	out := make(map[int]string, len(pages))
	for _, p := range pages {
		n := fmt.Sprint(p + 1)
		prefix := filepath.Join(dir, "page"+n)
		if _, err := runTool(ctx, render, "-r", fmt.Sprint(ocrDPI), "-gray", "-png", "-singlefile", "-f", n, "-l", n, src, prefix); err != nil {
			return nil, ocrError(ctx, "rendering page "+n, err)
		}
		text, err := runTool(ctx, tess, prefix+".png", "stdout", "-l", langs)
		if err != nil {
			return nil, ocrError(ctx, "OCR of page "+n, err)
		}
		os.Remove(prefix + ".png")
		out[p] = text
	}
	return out, nil
}

// runTool runs a program and returns its standard output; on failure the
// error carries the end of its standard error, which names the problem
// (a missing language pack, a damaged page).
func runTool(ctx context.Context, prog string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = "…" + msg[len(msg)-300:]
		}
		return "", fmt.Errorf("%s: %w: %s", filepath.Base(prog), err, msg)
	}
	return stdout.String(), nil
}

func ocrError(ctx context.Context, what string, err error) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return newError(ErrTimeout, "OCR of the scanned PDF took too long (%s); raise extract.timeout or disable OCR", what)
	}
	return newError(ErrNoTextLayer, "no text layer, and OCR failed (%s: %v)", what, err)
}
