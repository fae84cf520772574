package routing

import "testing"

// TestFeaturesGolden pins the features of the realistic archive's first
// texts (checksum computed at c97def2): stored routing features must not
// change without FeatureVersion.
func TestFeaturesGolden(t *testing.T) {
	texts, _ := realisticTexts()
	var sum uint64
	for _, s := range texts[:40] {
		for _, f := range Features([]byte(s), DefaultParams) {
			sum = sum*31 + f
		}
		sum = sum*31 + 1
	}
	if want := uint64(0xc1c9505def41d2bf); sum != want {
		t.Errorf("checksum %#x, want %#x", sum, want)
	}
}
