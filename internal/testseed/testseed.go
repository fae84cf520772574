package testseed

import (
	"flag"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomised tests (0: PLAGD_TEST_SEED or the clock)")

// Seed returns the test's seed and logs how to replay it. A malformed
// PLAGD_TEST_SEED fails the test rather than silently using another seed.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		if e := os.Getenv("PLAGD_TEST_SEED"); e != "" {
			v, err := strconv.ParseUint(e, 10, 64)
			if err != nil {
				t.Fatalf("PLAGD_TEST_SEED=%q: %v", e, err)
			}
			seed = v
		}
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay: PLAGD_TEST_SEED=%d go test -run '^%s$')", seed, seed, t.Name())
	return seed
}

// Rand returns a generator seeded with Seed(t).
func Rand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := Seed(t)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}
