package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/extract"
)

// Reader names who reads a file into text: the extraction options and the
// plagd build (a digest of this program's executable, which the extraction
// processes run too). A text read at upload is used by the run only when
// the run's Reader is the same (table plagd_extracted). "" means the build
// is unknown (the executable cannot be read): nothing is kept or reused.
func Reader(opt extract.Options) string {
	b := buildDigest()
	if b == "" {
		return ""
	}
	// The fields that decide what text a file gives (the timeout only
	// decides whether a slow file gives one).
	sum := sha256.Sum256(fmt.Appendf(nil, "%s %s %d %d %d %+v %+v %s", readerVersion, b, opt.MaxBytes, opt.MaxUnzipped, opt.MaxZipEntries,
		opt.OCR, opt.Limits, opt.PDFEngine))
	return hex.EncodeToString(sum[:16])
}

// readerVersion names what a kept text carries besides the text: "flags"
// since texts are kept with their disguise flags (migration 0012). A text
// kept by a build that kept no flags must never be taken as flag-free; the
// build digest differs anyway, and this says so whatever the digest.
const readerVersion = "flags"

var buildDigest = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})

// KeepExtracted records text as what reader made of content, the file now
// stored as document id, for the next run (plagd_extracted), with the
// document's flags (disguise.Of of what extraction found and of text).
// Nothing is kept without a reader or a file.
func KeepExtracted(ctx context.Context, q Querier, id int64, content []byte, reader, text string, flags []disguise.Flag) error {
	if reader == "" || content == nil {
		return nil
	}
	body, tooLong := StorableText(text)
	if tooLong != "" {
		return nil
	}
	if body != text {
		return nil // flag spans are offsets of text: keep only a text stored as it was read
	}
	fl, err := FlagsValue(flags)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(content)
	if _, err := q.Exec(ctx, `
		insert into plagd_extracted (doc_id, source_sha, reader, body, flags) values ($1, $2, $3, $4, $5)
		on conflict (doc_id) do update set source_sha = excluded.source_sha, reader = excluded.reader,
			body = excluded.body, flags = excluded.flags, created_at = clock_timestamp()`, id, sum[:], reader, body, fl); err != nil {
		return fmt.Errorf("keep the extracted text of document %d: %w", id, err)
	}
	return nil
}
