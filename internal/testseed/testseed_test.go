package testseed

import "testing"

func TestSeedFromEnvironment(t *testing.T) {
	t.Setenv("PLAGD_TEST_SEED", "12345")
	if got := Seed(t); got != 12345 {
		t.Fatalf("Seed = %d, want 12345 from PLAGD_TEST_SEED", got)
	}
	a, b := Rand(t), Rand(t)
	if a.Uint64() != b.Uint64() {
		t.Fatal("two generators of one seed differ")
	}
}
