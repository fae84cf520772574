package hostile

import (
	"bytes"
	"testing"
)

func TestMutationsAreDeterministic(t *testing.T) {
	a, b := Mutations(7, 200), Mutations(7, 200)
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Fatalf("mutation %d differs: %s vs %s", i, a[i].Name, b[i].Name)
		}
	}
	if c := Mutations(8, 200); c[0].Name == a[0].Name && bytes.Equal(c[0].Data, a[0].Data) && c[1].Name == a[1].Name {
		t.Errorf("seeds 7 and 8 give the same corpus")
	}
}

func TestItemSizes(t *testing.T) {
	// The files weigh 627 B to 7.1 MB; ours are of the same order.
	for name, c := range map[string]struct {
		b        []byte
		min, max int
	}{
		"absurd":  {AbsurdXrefPDF(), 300, 2000},
		"self":    {SelfListingPageTreePDF(), 500, 2000},
		"nested":  {NestedXObjectsPDF(8, 12), 1000, 5000},
		"shared":  {SharedStreamPDF(60, 510000), 5000, 30000},
		"comment": {HugeCommentDOCX(64 << 20), 200 << 10, 1 << 20},
	} {
		if len(c.b) < c.min || len(c.b) > c.max {
			t.Errorf("%s: %d bytes, want %d..%d", name, len(c.b), c.min, c.max)
		}
	}
}
