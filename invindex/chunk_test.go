package invindex

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// hashVector pins the output of Words, ChunkIDs and the window fingerprints
// (N = 5) for HashVersion 4; words and chunk IDs of text without disguises
// are unchanged since HashVersion 1, which had no fingerprints (version 3
// added the disguised entry, whose hashes are the clean sentence's, version
// 4 the letter-spaced one). These values were generated
// once and must never change: if this test fails, either the change is a
// bug, or HashVersion must be bumped and the vector regenerated
// deliberately.
var hashVector = []struct {
	text               string
	strip              bool
	words              []Word
	ids28, ids32       []uint32
	checks28, checks32 []uint8 // per window, in text order
}{
	{
		text:  "The quick brown fox jumps over the lazy dog.",
		strip: false,
		words: []Word{
			{0, 3, 0x56f5c9194461d57c},   // The
			{4, 9, 0x4b6ebd1433656d9c},   // quick
			{10, 15, 0xea78181e1cf48dcf}, // brown
			{16, 19, 0xdcb28218fed9eb8e}, // fox
			{20, 25, 0xab83b92cbe0deeda}, // jumps
			{26, 30, 0xc2a38db44454a06f}, // over
			{31, 34, 0x56f5c9194461d57c}, // the
			{35, 39, 0x0437d9ad903da32f}, // lazy
			{40, 43, 0xcaaf3b18f47478e9}, // dog
		},
		ids28:    []uint32{0x0b8bdb39, 0x0bf9f747, 0x0748780b, 0x07df25a6, 0x076b921b},
		ids32:    []uint32{0xb8bdb399, 0xbf9f7470, 0x748780b9, 0x7df25a6a, 0x76b921b9},
		checks28: []uint8{0x96, 0x0a, 0x9f, 0xac, 0x90},
		checks32: []uint8{0x63, 0xae, 0xff, 0xcb, 0x07},
	},
	{
		// The first sentence disguised (HashVersion 3): Cyrillic Т and е
		// in "The", а in "lazy", a zero-width space in "brown", "fox"
		// letter-spaced, a soft hyphen after "jumps". Same hashes, same
		// chunks, offsets into the disguised text.
		text:  "Тhе quick bro\u200Bwn f o x jumps\u00AD over the lаzy dog.",
		strip: false,
		words: []Word{
			{0, 5, 0x56f5c9194461d57c},   // Тhе
			{6, 11, 0x4b6ebd1433656d9c},  // quick
			{12, 20, 0xea78181e1cf48dcf}, // bro\u200Bwn
			{21, 26, 0xdcb28218fed9eb8e}, // f o x
			{27, 32, 0xab83b92cbe0deeda}, // jumps
			{35, 39, 0xc2a38db44454a06f}, // over
			{40, 43, 0x56f5c9194461d57c}, // the
			{44, 49, 0x0437d9ad903da32f}, // lаzy
			{50, 53, 0xcaaf3b18f47478e9}, // dog
		},
		ids28:    []uint32{0x0b8bdb39, 0x0bf9f747, 0x0748780b, 0x07df25a6, 0x076b921b},
		ids32:    []uint32{0xb8bdb399, 0xbf9f7470, 0x748780b9, 0x7df25a6a, 0x76b921b9},
		checks28: []uint8{0x96, 0x0a, 0x9f, 0xac, 0x90},
		checks32: []uint8{0x63, 0xae, 0xff, 0xcb, 0x07},
	},
	{
		// The first sentence letter-spaced with single spaces between
		// its words too (HashVersion 4): the run "thequickbrownfox" is
		// cut into its words (package disguise/wordseg).
		text:  "T h e q u i c k b r o w n f o x jumps over the lazy dog.",
		strip: false,
		words: []Word{
			{0, 5, 0x56f5c9194461d57c},   // T h e
			{6, 15, 0x4b6ebd1433656d9c},  // q u i c k
			{16, 25, 0xea78181e1cf48dcf}, // b r o w n
			{26, 31, 0xdcb28218fed9eb8e}, // f o x
			{32, 37, 0xab83b92cbe0deeda}, // jumps
			{38, 42, 0xc2a38db44454a06f}, // over
			{43, 46, 0x56f5c9194461d57c}, // the
			{47, 51, 0x0437d9ad903da32f}, // lazy
			{52, 55, 0xcaaf3b18f47478e9}, // dog
		},
		ids28:    []uint32{0x0b8bdb39, 0x0bf9f747, 0x0748780b, 0x07df25a6, 0x076b921b},
		ids32:    []uint32{0xb8bdb399, 0xbf9f7470, 0x748780b9, 0x7df25a6a, 0x76b921b9},
		checks28: []uint8{0x96, 0x0a, 0x9f, 0xac, 0x90},
		checks32: []uint8{0x63, 0xae, 0xff, 0xcb, 0x07},
	},
	{
		text:  "Příliš žluťoučký kůň úpěl ďábelské ódy",
		strip: false,
		words: []Word{
			{0, 9, 0x9130f8068bc9f0b0},   // Příliš
			{10, 23, 0xe81c0bd44c9cf255}, // žluťoučký
			{24, 29, 0xf0c0a8bcfba9dab3}, // kůň
			{30, 36, 0x864c7a49717ddce3}, // úpěl
			{37, 48, 0x2f17b32e590487ad}, // ďábelské
			{49, 53, 0x15f24cc6719848e4}, // ódy
		},
		ids28:    []uint32{0x00fbd9a9, 0x0857a5c6},
		ids32:    []uint32{0x0fbd9a9b, 0x857a5c68},
		checks28: []uint8{0xb8, 0x8b},
		checks32: []uint8{0x84, 0xb7},
	},
	{
		text:  "Die Straße ist groß; die STRASSE ist GROSS.",
		strip: false,
		words: []Word{
			{0, 3, 0xcaa82d18f46e4271},   // Die
			{4, 11, 0x2595a86fa4824774},  // Straße
			{12, 15, 0x2bcbed192bf9e493}, // ist
			{16, 21, 0xdc50f72946f0e227}, // groß
			{23, 26, 0xcaa82d18f46e4271}, // die
			{27, 34, 0x2595a86fa4824774}, // STRASSE
			{35, 38, 0x2bcbed192bf9e493}, // ist
			{39, 44, 0xdc50f72946f0e227}, // GROSS
		},
		ids28:    []uint32{0x002cf3d5, 0x019c8c3f, 0x002ca858, 0x081e7422},
		ids32:    []uint32{0x02cf3d5f, 0x19c8c3f3, 0x02ca8583, 0x81e74222},
		checks28: []uint8{0xf2, 0x37, 0x3d, 0x2f},
		checks32: []uint8{0x2f, 0x7c, 0xd6, 0xfc},
	},
	{
		text:  "The ﬁle ﬁnder ﬁnds ﬁve ﬁles ﬁnally",
		strip: false,
		words: []Word{
			{0, 3, 0x56f5c9194461d57c},   // The
			{4, 9, 0xaad01178f02a6a23},   // ﬁle
			{10, 17, 0xcac380baf114aa8d}, // ﬁnder
			{18, 24, 0x7c3c628022afdd6b}, // ﬁnds
			{25, 30, 0xaa851578efea8575}, // ﬁve
			{31, 37, 0x69f800801812a5f0}, // ﬁles
			{38, 46, 0xfc3ac68ec6654a08}, // ﬁnally
		},
		ids28:    []uint32{0x0b6ca61c, 0x0ead07e1, 0x0839e53d},
		ids32:    []uint32{0xb6ca61cd, 0xead07e1b, 0x839e53dd},
		checks28: []uint8{0xdc, 0xb8, 0xd8},
		checks32: []uint8{0xc1, 0x82, 0x84},
	},
	{
		text:  "HeLLo WoRLD, ÉCOLE école Ecole ÉCOLE straße",
		strip: false,
		words: []Word{
			{0, 5, 0xa430d84680aabd0b},   // HeLLo
			{6, 11, 0x4f59ff5e730c8af3},  // WoRLD
			{13, 19, 0xcc08d71985d94200}, // ÉCOLE
			{20, 26, 0xcc08d71985d94200}, // école
			{27, 32, 0xc120a460b1cb91dd}, // Ecole
			{33, 39, 0xcc08d71985d94200}, // ÉCOLE
			{40, 47, 0x2595a86fa4824774}, // straße
		},
		ids28:    []uint32{0x06b8e810, 0x08a25cc3, 0x0c88cd96},
		ids32:    []uint32{0x6b8e8106, 0x8a25cc35, 0xc88cd964},
		checks28: []uint8{0x60, 0x50, 0x4e},
		checks32: []uint8{0x0d, 0x01, 0xe5},
	},
	{
		text:  "The quick brown fox jumps over the lazy dog.",
		strip: true,
		words: []Word{
			{0, 3, 0x56f5c9194461d57c},   // The
			{4, 9, 0x4b6ebd1433656d9c},   // quick
			{10, 15, 0xea78181e1cf48dcf}, // brown
			{16, 19, 0xdcb28218fed9eb8e}, // fox
			{20, 25, 0xab83b92cbe0deeda}, // jumps
			{26, 30, 0xc2a38db44454a06f}, // over
			{31, 34, 0x56f5c9194461d57c}, // the
			{35, 39, 0x0437d9ad903da32f}, // lazy
			{40, 43, 0xcaaf3b18f47478e9}, // dog
		},
		ids28:    []uint32{0x0b8bdb39, 0x0bf9f747, 0x0748780b, 0x07df25a6, 0x076b921b},
		ids32:    []uint32{0xb8bdb399, 0xbf9f7470, 0x748780b9, 0x7df25a6a, 0x76b921b9},
		checks28: []uint8{0x96, 0x0a, 0x9f, 0xac, 0x90},
		checks32: []uint8{0x63, 0xae, 0xff, 0xcb, 0x07},
	},
	{
		text:  "Příliš žluťoučký kůň úpěl ďábelské ódy",
		strip: true,
		words: []Word{
			{0, 9, 0x75f9b11ac0a73f96},   // Příliš
			{10, 23, 0xda3d03048f21170f}, // žluťoučký
			{24, 29, 0x3dff391936888379}, // kůň
			{30, 36, 0x63721de3f4798369}, // úpěl
			{37, 48, 0xf2de69e88b59f57a}, // ďábelské
			{49, 53, 0x1a2aaa1921e74315}, // ódy
		},
		ids28:    []uint32{0x0e6aed4e, 0x0b24b02c},
		ids32:    []uint32{0xe6aed4ef, 0xb24b02cc},
		checks28: []uint8{0xfb, 0xc8},
		checks32: []uint8{0xb2, 0x8b},
	},
	{
		text:  "Die Straße ist groß; die STRASSE ist GROSS.",
		strip: true,
		words: []Word{
			{0, 3, 0xcaa82d18f46e4271},   // Die
			{4, 11, 0x2595a86fa4824774},  // Straße
			{12, 15, 0x2bcbed192bf9e493}, // ist
			{16, 21, 0xdc50f72946f0e227}, // groß
			{23, 26, 0xcaa82d18f46e4271}, // die
			{27, 34, 0x2595a86fa4824774}, // STRASSE
			{35, 38, 0x2bcbed192bf9e493}, // ist
			{39, 44, 0xdc50f72946f0e227}, // GROSS
		},
		ids28:    []uint32{0x002cf3d5, 0x019c8c3f, 0x002ca858, 0x081e7422},
		ids32:    []uint32{0x02cf3d5f, 0x19c8c3f3, 0x02ca8583, 0x81e74222},
		checks28: []uint8{0xf2, 0x37, 0x3d, 0x2f},
		checks32: []uint8{0x2f, 0x7c, 0xd6, 0xfc},
	},
	{
		text:  "The ﬁle ﬁnder ﬁnds ﬁve ﬁles ﬁnally",
		strip: true,
		words: []Word{
			{0, 3, 0x56f5c9194461d57c},   // The
			{4, 9, 0xaad01178f02a6a23},   // ﬁle
			{10, 17, 0xcac380baf114aa8d}, // ﬁnder
			{18, 24, 0x7c3c628022afdd6b}, // ﬁnds
			{25, 30, 0xaa851578efea8575}, // ﬁve
			{31, 37, 0x69f800801812a5f0}, // ﬁles
			{38, 46, 0xfc3ac68ec6654a08}, // ﬁnally
		},
		ids28:    []uint32{0x0b6ca61c, 0x0ead07e1, 0x0839e53d},
		ids32:    []uint32{0xb6ca61cd, 0xead07e1b, 0x839e53dd},
		checks28: []uint8{0xdc, 0xb8, 0xd8},
		checks32: []uint8{0xc1, 0x82, 0x84},
	},
	{
		text:  "HeLLo WoRLD, ÉCOLE école Ecole ÉCOLE straße",
		strip: true,
		words: []Word{
			{0, 5, 0xa430d84680aabd0b},   // HeLLo
			{6, 11, 0x4f59ff5e730c8af3},  // WoRLD
			{13, 19, 0xc120a460b1cb91dd}, // ÉCOLE
			{20, 26, 0xc120a460b1cb91dd}, // école
			{27, 32, 0xc120a460b1cb91dd}, // Ecole
			{33, 39, 0xc120a460b1cb91dd}, // ÉCOLE
			{40, 47, 0x2595a86fa4824774}, // straße
		},
		ids28:    []uint32{0x0ba99144, 0x0cace581, 0x0e8c2833},
		ids32:    []uint32{0xba99144e, 0xcace5817, 0xe8c28330},
		checks28: []uint8{0xe0, 0x71, 0x08},
		checks32: []uint8{0x0b, 0x18, 0x88},
	},
}

func TestHashVector(t *testing.T) {
	if HashVersion != 4 {
		t.Fatalf("HashVersion %d: regenerate hashVector for it", HashVersion)
	}
	for _, v := range hashVector {
		for _, bits := range []uint{28, 32} {
			want, wantChecks := v.ids28, v.checks28
			if bits == 32 {
				want, wantChecks = v.ids32, v.checks32
			}
			tk := NewTokenizer(Params{WindowWords: 5, ChunkBits: bits, StripDiacritics: v.strip})
			ws := tk.Words(v.text, nil)
			if !slices.Equal(ws, v.words) {
				t.Errorf("strip=%v Words(%q):\n got  %#v\n want %#v", v.strip, v.text, ws, v.words)
			}
			if ids := tk.ChunkIDs(ws, nil); !slices.Equal(ids, want) {
				t.Errorf("strip=%v bits=%d ChunkIDs(%q) = %#x, want %#x", v.strip, bits, v.text, ids, want)
			}
			var keys []uint64
			for i, k := range tk.chunkKeys(ws, nil) {
				keys = append(keys, uint64(want[i])<<8|uint64(wantChecks[i]))
				if got := uint64(k); got != keys[i] {
					t.Errorf("strip=%v bits=%d window %d of %q: key %#x, want %#x", v.strip, bits, i, v.text, got, keys[i])
				}
			}
			if len(keys) != len(want) {
				t.Errorf("%q: %d fingerprints for %d chunks", v.text, len(wantChecks), len(want))
			}
			// DocChunks: sorted by ID; an ID twice keeps its smallest fingerprint.
			slices.Sort(keys)
			keys = slices.CompactFunc(keys, func(a, b uint64) bool { return a>>8 == b>>8 })
			_, ids, checks := tk.DocChunks(v.text)
			for i, k := range keys {
				if i >= len(ids) || ids[i] != uint32(k>>8) || checks[i] != uint8(k) {
					t.Fatalf("strip=%v bits=%d DocChunks(%q) = %#x %#x, want keys %#x", v.strip, bits, v.text, ids, checks, keys)
				}
			}
		}
	}
}

func TestWindowHashVector(t *testing.T) {
	for _, c := range []struct {
		hashes []uint64
		bits   uint
		want   uint32
	}{
		{nil, 32, 0xe9e0033e},
		{[]uint64{1, 2, 3}, 32, 0x8b69c25b},
		{[]uint64{1, 2, 3}, 20, 0x8b69c},
		{[]uint64{1, 2, 3}, 0, 0},
	} {
		if got := WindowHash(c.hashes, c.bits); got != c.want {
			t.Errorf("WindowHash(%v, %d) = %#x, want %#x", c.hashes, c.bits, got, c.want)
		}
	}
	// The fingerprint is the next 8 bits of the same hash.
	for _, c := range []struct {
		hashes []uint64
		bits   uint
		want   uint8
	}{
		{nil, 32, 0x3b},
		{[]uint64{1, 2, 3}, 32, 0xb7},
		{[]uint64{1, 2, 3}, 28, 0xbb},
		{[]uint64{1, 2, 3}, 20, 0x25},
		{[]uint64{1, 2, 3}, 0, 0x8b},
	} {
		if got := WindowFingerprint(c.hashes, c.bits); got != c.want {
			t.Errorf("WindowFingerprint(%v, %d) = %#x, want %#x", c.hashes, c.bits, got, c.want)
		}
	}
	// Word order matters.
	if WindowHash([]uint64{1, 2, 3}, 32) == WindowHash([]uint64{3, 2, 1}, 32) {
		t.Error("WindowHash ignores word order")
	}
}

func TestWindowHashPanicsAbove32(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("WindowHash(bits=33) did not panic")
		}
	}()
	WindowHash(nil, 33)
}

func TestWindowFingerprintPanicsAbove32(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("WindowFingerprint(bits=33) did not panic")
		}
	}()
	WindowFingerprint(nil, 33)
}

func TestNewTokenizerPanicsOnInvalidParams(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewTokenizer(invalid) did not panic")
		}
	}()
	NewTokenizer(Params{WindowWords: 0, ChunkBits: 28})
}

func TestChunkIDsCountAndWindows(t *testing.T) {
	words := make([]Word, 12)
	for i := range words {
		words[i] = Word{Start: uint32(2 * i), End: uint32(2*i + 1), Hash: uint64(i) * 0x1234567}
	}
	hashes := make([]uint64, len(words))
	for i, w := range words {
		hashes[i] = w.Hash
	}
	var ids []uint32
	for n := 1; n <= 8; n++ {
		for _, bits := range []uint{20, 28, 32} {
			tk := NewTokenizer(Params{WindowWords: n, ChunkBits: bits})
			for m := 0; m <= len(words); m++ {
				ids = tk.ChunkIDs(words[:m], ids)
				if want := max(m-n+1, 0); len(ids) != want {
					t.Fatalf("N=%d: %d words gave %d chunks, want %d", n, m, len(ids), want)
				}
				for i, id := range ids {
					if want := WindowHash(hashes[i:i+n], bits); id != want {
						t.Fatalf("N=%d bits=%d chunk %d = %#x, WindowHash gives %#x", n, bits, i, id, want)
					}
					if id>>bits != 0 && bits < 32 {
						t.Fatalf("chunk %#x exceeds %d bits", id, bits)
					}
				}
			}
		}
	}
}

func TestDocChunks(t *testing.T) {
	for _, bits := range []uint{20, 28, 32} {
		for _, n := range []int{1, 5, 7} {
			p := Params{WindowWords: n, ChunkBits: bits}
			tk := NewTokenizer(p)
			for seed := range uint64(3) {
				text := benchText(7+seed, []int{5000, 20 << 10, 200 << 10}[seed], seed == 1)
				words, chunks, checks := tk.DocChunks(text)
				ws := tk.Words(text, nil)
				if words != len(ws) {
					t.Fatalf("DocChunks words = %d, Words gives %d", words, len(ws))
				}
				wantChunks, wantChecks := docChunksReference(ws, n, bits)
				if !slices.Equal(chunks, wantChunks) || !slices.Equal(checks, wantChecks) {
					t.Fatalf("N=%d bits=%d: DocChunks differs from the per-window reference", n, bits)
				}
				if cap(chunks) != len(chunks) || cap(checks) != len(checks) {
					t.Errorf("chunks cap %d len %d, checks cap %d len %d: want exact", cap(chunks), len(chunks), cap(checks), len(checks))
				}
				// The result is the caller's: further calls must not touch it.
				kept, keptChecks := slices.Clone(chunks), slices.Clone(checks)
				tk.DocChunks(benchText(8, 20<<10, false))
				if !slices.Equal(chunks, kept) || !slices.Equal(checks, keptChecks) {
					t.Error("DocChunks result was overwritten by the next call")
				}
			}
		}
	}
	// Short texts.
	tk := defaultTokenizer()
	for _, s := range []string{"", "one two three four", "one two three four five"} {
		w, c, f := tk.DocChunks(s)
		if want := max(w-4, 0); len(c) != want || len(f) != want {
			t.Errorf("DocChunks(%q) = %d words, %d chunks, %d checks", s, w, len(c), len(f))
		}
	}
}

// docChunksReference is DocChunks by definition: every window's WindowHash
// and WindowFingerprint, one entry per distinct ID with its smallest
// fingerprint.
func docChunksReference(ws []Word, n int, bits uint) ([]uint32, []uint8) {
	fp := map[uint32]uint8{}
	hashes := make([]uint64, len(ws))
	for i, w := range ws {
		hashes[i] = w.Hash
	}
	for i := 0; i+n <= len(ws); i++ {
		id, f := WindowHash(hashes[i:i+n], bits), WindowFingerprint(hashes[i:i+n], bits)
		if old, ok := fp[id]; !ok || f < old {
			fp[id] = f
		}
	}
	ids := slices.Sorted(maps.Keys(fp))
	checks := make([]uint8, len(ids))
	for i, id := range ids {
		checks[i] = fp[id]
	}
	return ids, checks
}

// TestDocChunks_CollisionKeepsSmallestFingerprint builds a document with
// two windows of equal chunk ID and different fingerprints (found by brute
// force at 20 bits) and checks the smaller fingerprint is kept.
func TestDocChunks_CollisionKeepsSmallestFingerprint(t *testing.T) {
	const bits = 20
	tk := NewTokenizer(Params{WindowWords: 1, ChunkBits: bits})
	seen := map[uint32]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		w := "w" + strconv.Itoa(i)
		h := tk.Words(w, nil)[0].Hash
		id := WindowHash([]uint64{h}, bits)
		if o, ok := seen[id]; ok {
			ho := tk.Words(o, nil)[0].Hash
			if WindowFingerprint([]uint64{ho}, bits) != WindowFingerprint([]uint64{h}, bits) {
				a, b = o, w
			}
		}
		seen[id] = w
	}
	ha, hb := tk.Words(a, nil)[0].Hash, tk.Words(b, nil)[0].Hash
	fa, fb := WindowFingerprint([]uint64{ha}, bits), WindowFingerprint([]uint64{hb}, bits)
	for _, text := range []string{a + " " + b, b + " " + a} {
		_, chunks, checks := tk.DocChunks(text)
		if len(chunks) != 1 || chunks[0] != WindowHash([]uint64{ha}, bits) || checks[0] != min(fa, fb) {
			t.Fatalf("%q: chunks %#x checks %#x, want one chunk with fingerprint %#x", text, chunks, checks, min(fa, fb))
		}
	}
}

func sortDistinctReference(ids []uint32) []uint32 {
	set := make(map[uint32]struct{}, len(ids))
	for _, v := range ids {
		set[v] = struct{}{}
	}
	return slices.Sorted(maps.Keys(set))
}

func TestSortDistinct(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	sizes := []int{0, 1, 2, 3, sdMinRadixLen - 1, sdMinRadixLen, sdMinRadixLen + 1, 1000, sdWideLen - 1, sdWideLen, 4096, 100_000}
	gens := map[string]func() uint32{
		"32bit":    r.Uint32,
		"28bit":    func() uint32 { return r.Uint32() >> 4 },
		"22bit":    func() uint32 { return r.Uint32() >> 10 },
		"11bit":    func() uint32 { return r.Uint32() >> 21 },
		"fewdup":   func() uint32 { return r.Uint32N(50) },
		"highonly": func() uint32 { return r.Uint32N(4) << 28 },
		"samelow":  func() uint32 { return r.Uint32()<<11 | 0x5a5 },
		"constant": func() uint32 { return 0xdeadbeef },
		"zero":     func() uint32 { return 0 },
	}
	for name, gen := range gens {
		for _, n := range sizes {
			for _, scratchKind := range []string{"nil", "short", "ok"} {
				ids := make([]uint32, n)
				for i := range ids {
					ids[i] = gen()
				}
				want := sortDistinctReference(ids)
				var scratch []uint32
				switch scratchKind {
				case "short":
					scratch = make([]uint32, n/2)
				case "ok":
					scratch = make([]uint32, n+3)
				}
				got := SortDistinct(ids, scratch)
				if !slices.Equal(got, want) && len(want) > 0 {
					t.Fatalf("seed %d %s n=%d scratch=%s: wrong result (len %d, want %d)", seed, name, n, scratchKind, len(got), len(want))
				}
				if len(got) != len(want) {
					t.Fatalf("%s n=%d: len %d, want %d", name, n, len(got), len(want))
				}
				if len(got) > 0 && &got[0] != &ids[0] {
					t.Fatalf("%s n=%d: result is not a prefix of ids", name, n)
				}
			}
		}
	}
}

func BenchmarkDocChunks(b *testing.B) {
	for _, bc := range []struct {
		name       string
		size       int
		diacritics bool
		strip      bool
	}{
		{"english-16KiB", 16 << 10, false, false},
		{"english-256KiB", 256 << 10, false, false},
		{"czech-256KiB", 256 << 10, true, false},
		{"czech-strip-256KiB", 256 << 10, true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			text := benchText(1, bc.size, bc.diacritics)
			p := DefaultParams()
			p.StripDiacritics = bc.strip
			tk := NewTokenizer(p)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				tk.DocChunks(text)
			}
		})
		// The same work without fingerprints (HashVersion 1's DocChunks:
		// 32-bit IDs through SortDistinct), side by side for the ratio.
		b.Run(bc.name+"/ids-only", func(b *testing.B) {
			text := benchText(1, bc.size, bc.diacritics)
			p := DefaultParams()
			p.StripDiacritics = bc.strip
			tk := NewTokenizer(p)
			var ws []Word
			var ids, scratch []uint32
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				ws = tk.Words(text, ws)
				ids = tk.ChunkIDs(ws, ids)
				scratch = slices.Grow(scratch[:0], len(ids))
				_ = slices.Clone(SortDistinct(ids, scratch))
			}
		})
	}
}

func BenchmarkChunkIDs(b *testing.B) {
	text := benchText(1, 256<<10, false)
	tk := defaultTokenizer()
	ws := tk.Words(text, nil)
	var ids []uint32
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		ids = tk.ChunkIDs(ws, ids)
	}
}

// BenchmarkSortDistinct compares the radix sort with slices.Sort+Compact on
// 28-bit chunk IDs of realistic document sizes (bytes = 4 per ID).
func BenchmarkSortDistinct(b *testing.B) {
	for _, n := range []int{300, 3000, 40_000, 400_000} {
		r := rand.New(rand.NewPCG(uint64(n), 2))
		in := make([]uint32, n)
		for i := range in {
			in[i] = r.Uint32() >> 4
		}
		work := make([]uint32, n)
		scratch := make([]uint32, n)
		b.Run("radix/n="+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(4 * int64(n))
			b.ReportAllocs()
			for b.Loop() {
				copy(work, in)
				SortDistinct(work, scratch)
			}
		})
		b.Run("slices.Sort/n="+strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(4 * int64(n))
			b.ReportAllocs()
			for b.Loop() {
				copy(work, in)
				slices.Sort(work)
				_ = slices.Compact(work)
			}
		})
	}
}

// TestDistinctKeys checks the key sort of DocChunks against a map: one key
// per ID, the smallest fingerprint, ascending, for every size class and
// for IDs with many fingerprints each.
func TestDistinctKeys(t *testing.T) {
	rng := testRand(t)
	for _, idBits := range []uint{20, 28, 32} {
		for _, n := range []int{0, 1, sdMinRadixLen - 1, sdMinRadixLen, 1000, sdWideLen - 1, sdWideLen, 50_000} {
			for _, idSpace := range []uint64{1 << idBits, 50} {
				keys := make([]uint64, n)
				want := map[uint64]uint64{}
				for i := range keys {
					id := rng.Uint64N(idSpace)
					if idSpace == 50 {
						id <<= idBits - 6 // few IDs, high bits: passes get skipped
					}
					k := id<<8 | rng.Uint64N(256)
					keys[i] = k
					if old, ok := want[id]; !ok || k < old {
						want[id] = k
					}
				}
				got := distinctKeys(keys, make([]uint64, n), idBits)
				wantKeys := slices.Sorted(maps.Values(want))
				if !slices.Equal(got, wantKeys) {
					t.Fatalf("idBits %d n %d ids %d: %d keys, want %d", idBits, n, idSpace, len(got), len(wantKeys))
				}
			}
		}
	}
}
