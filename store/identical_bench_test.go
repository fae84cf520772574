package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/plagd/plagd/internal/pgtest"
)

// BenchmarkIdenticalDocuments is the cost an upload pays to learn whether
// its file is already in the archive: 2,000 stored files of 64 KiB, one
// lookup of a file that is among them, with the index of migration 0010
// and without it (a scan hashing every stored file).
//
//	go test ./store -run '^$' -bench IdenticalDocuments -benchtime 20x -count 5
func BenchmarkIdenticalDocuments(b *testing.B) {
	ctx := context.Background()
	pool := pgtest.Pool(b, pgtest.NewDB(b))
	rng := rand.New(rand.NewPCG(1, 2))
	const n, size = 2000, 64 << 10
	var probe []byte
	for i := range n {
		content := make([]byte, size)
		for j := range content {
			content[j] = byte('a' + rng.IntN(26))
		}
		if i == n/2 {
			probe = content
		}
		if _, err := CreateDocument(ctx, pool, DocumentInput{Filename: fmt.Sprintf("f%d.txt", i), Content: content}); err != nil {
			b.Fatal(err)
		}
	}
	pgtest.Exec(b, pool, `analyze documents`)
	lookup := func(b *testing.B) {
		for b.Loop() {
			got, err := IdenticalDocuments(ctx, pool, probe)
			if err != nil || len(got) != 1 {
				b.Fatalf("%v, %v", got, err)
			}
		}
	}
	b.Run("index", lookup)
	pgtest.Exec(b, pool, `drop index documents_content_sha256`)
	b.Run("scan", lookup)
}
