package routing

// The hash functions shared by chunking and fingerprinting. Both are
// polynomial rolling hashes modulo 2^64 (Rabin-Karp) over bytes first mapped
// through a random table, finished by the splitmix64 mixer. The table
// removes the low entropy of ASCII text before it enters the polynomial; the
// mixer, a bijection, makes every output bit depend on every input bit, which
// the low-bit moduli of TTTD and the "minimum" of the fingerprint both need
// (a raw polynomial's low bits only see the low bits of the bytes).
//
// These constants define the features. Changing any of them changes every
// document's features and routing, so a stored routed index would have to
// be rebuilt: bump FeatureVersion.

// FeatureVersion identifies the definition of features and routing
// (normalisation, hash, chunking defaults, q). Store it with an index.
//
//	1  first definition
//	2  Normalize drops invisible characters and maps look-alike letters to
//	   their ASCII prototype (package disguise); the features of texts with
//	   such characters change, so a run recomputes every document's
const FeatureVersion = 2

const (
	// polyBase is the rolling polynomial's base: 2^64 / golden ratio,
	// rounded to odd, so multiplication by it is invertible mod 2^64.
	polyBase = 0x9E3779B97F4A7C15
	// byteSeed seeds the byte table: the first 64 bits of the fraction of
	// pi, a nothing-up-my-sleeve number.
	byteSeed = 0x243F6A8885A308D3
)

// byteTab maps each byte to a random 64-bit value (splitmix64 stream).
var byteTab = func() (t [256]uint64) {
	s := uint64(byteSeed)
	for i := range t {
		s += 0x9E3779B97F4A7C15
		t[i] = mix(s)
	}
	return t
}()

// mix is the splitmix64 finalizer.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return h
}

// powBase returns polyBase^n mod 2^64, the weight of the byte leaving a
// window of n bytes.
func powBase(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= polyBase
	}
	return p
}

// polyHash is the (unmixed) polynomial hash of b.
func polyHash(b []byte) uint64 {
	var h uint64
	for _, c := range b {
		h = h*polyBase + byteTab[c]
	}
	return h
}
