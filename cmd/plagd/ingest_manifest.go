package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plagd/plagd/audit"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/internal/cli"
	"github.com/plagd/plagd/store"
)

// ingestManifest is `plagd ingest --manifest FILE`: the rows of a CSV
// manifest (ingest.ParseManifest), with their files resolved relative to
// the manifest's folder, stored one row per transaction through
// ingest.Documents (each file read once, near-duplicates found at once),
// audited as the CLI's user. A manifest with any problem, or naming a
// missing file, imports nothing.
func ingestManifest(ctx context.Context, cfg config.Config, db *store.DB, manifest string, dup ingest.Duplicates) error {
	f, err := os.Open(manifest)
	if err != nil {
		return fmt.Errorf("open the manifest: %w", unwrapPathErr(err))
	}
	rows, err := ingest.ParseManifest(f)
	f.Close()
	var me ingest.ManifestErrors
	if errors.As(err, &me) {
		printManifestErrors(manifest, me)
		return fmt.Errorf("the manifest has %d problem(s); nothing was imported", len(me))
	}
	if err != nil {
		return err
	}
	log := cli.Logger(cfg)
	pool := sandbox.New(cfg.SandboxConfig(), log)
	defer pool.Close()
	docs := ingest.New(pool, cfg.ExtractOptions(), engine.NewNearDups(db.Pool, cfg), log)
	actor := audit.CLIActor()
	tx := func(ctx context.Context, fn func(q store.Querier) error) error {
		_, err := db.Audited(ctx, actor, fn)
		return err
	}
	files := diskFiles{dir: filepath.Dir(manifest), maxBytes: cfg.Extract.MaxBytes}
	outs, err := docs.ImportManifest(ctx, tx, rows, files, dup, nil)
	if errors.As(err, &me) {
		printManifestErrors(manifest, me)
		return fmt.Errorf("%d file(s) of the manifest cannot be imported; nothing was imported", len(me))
	}
	stored, replaced, skipped, failed := printManifestOutcomes(outs)
	log.Info().Str("manifest", store.PathShown(manifest)).Int("rows", len(rows)).Int("stored", stored).Int("replaced", replaced).
		Int("identical", skipped).Int("failed", failed).Msg("ingest: manifest imported")
	if err != nil {
		return err
	}
	if stored+replaced == 0 && failed > 0 {
		return fmt.Errorf("nothing could be imported: %d row(s) failed (see the list above)", failed)
	}
	return nil
}

func printManifestErrors(manifest string, me ingest.ManifestErrors) {
	printf("%s:\n", shown(manifest))
	for _, e := range me {
		printf("  %s\n", shown(e.Error()))
	}
}

// printManifestOutcomes lists what became of each row and counts it.
func printManifestOutcomes(outs []ingest.ManifestOutcome) (stored, replaced, skipped, failed int) {
	for _, o := range outs {
		row := fmt.Sprintf("row %d (%s)", o.Row, shown(o.File))
		switch {
		case o.Replaced:
			replaced++
			printf("%s: replaced the file of the identical document %d\n", row, o.ID)
		case o.ID != 0:
			stored++
			printf("%s: stored as document %d\n", row, o.ID)
		case len(o.Identical) > 0:
			skipped++
			d := o.Identical[0]
			printf("%s: skipped, byte for byte the file of document %d (%s); --duplicates=replace gives that document this row's file and details, --duplicates=new stores a second copy\n",
				row, d.ID, shown(firstNonEmpty(d.Title, d.Filename, d.ExternalID)))
		default:
			failed++
			printf("%s: not stored: %s\n", row, shown(o.Error))
		}
		if o.Warning != "" {
			printf("  stored, but %s\n", shown(o.Warning))
		}
		for _, n := range o.NearDuplicates {
			printf("  nearly the same text as #%d (%s), %s\n", n.ID, shown(describeNear(n)), plural(n.Distance, "bit"))
		}
	}
	printf("\nmanifest: %d stored, %d replaced, %d skipped as already in the archive, %d failed\n", stored, replaced, skipped, failed)
	if stored+replaced > 0 {
		printf("The next run indexes the new and changed documents; `plagd status` shows its progress.\n")
	}
	return
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// diskFiles are a manifest's files on disk, relative to its folder.
type diskFiles struct {
	dir      string
	maxBytes int64
}

func (d diskFiles) path(file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(d.dir, filepath.FromSlash(file))
}

func (d diskFiles) Check(file string) string {
	info, err := os.Stat(d.path(file))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Sprintf("no file %s (paths are relative to the manifest's folder)", store.PathShown(d.path(file)))
	case err != nil:
		return unwrapPathErr(err).Error()
	case !info.Mode().IsRegular():
		return "not a regular file"
	case info.Size() == 0:
		return "the file is empty (0 bytes)"
	case d.maxBytes > 0 && info.Size() > d.maxBytes:
		return extract.TooLarge(info.Size(), d.maxBytes).Error()
	}
	return ""
}

func (d diskFiles) Read(file string) ([]byte, string, string, error) {
	f, err := os.Open(d.path(file))
	if err != nil {
		return nil, "", "", unwrapPathErr(err)
	}
	defer f.Close()
	r := io.Reader(f)
	if d.maxBytes > 0 {
		r = io.LimitReader(f, d.maxBytes+1)
	}
	content, err := io.ReadAll(r)
	if err != nil {
		return nil, "", "", unwrapPathErr(err)
	}
	if d.maxBytes > 0 && int64(len(content)) > d.maxBytes {
		return nil, "", "", extract.TooLarge(int64(len(content)), d.maxBytes)
	}
	name := filepath.Base(file)
	return content, name, extract.ContentType(name), nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
