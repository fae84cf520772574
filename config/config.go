package config

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/report"
)

// Config is plagd's whole configuration. It is read from one YAML file
// (configs/plagd.yaml documents every field) and then overridden by
// environment variables named PLAGD_<SECTION>_<FIELD> (see ApplyEnv).
type Config struct {
	// DatabaseURL is a PostgreSQL connection string. Overridden by
	// PLAGD_DATABASE_URL, then DATABASE_URL, then the --database flag.
	DatabaseURL string `yaml:"database_url"`
	// DataDir holds the persisted index generations (versioned, checksummed files).
	DataDir  string   `yaml:"data_dir"`
	Log      Log      `yaml:"log"`
	Engine   Engine   `yaml:"engine"`
	Schedule Schedule `yaml:"schedule"`
	HTTP     HTTP     `yaml:"http"`
	Auth     Auth     `yaml:"auth"`
	Extract  Extract  `yaml:"extract"`
	Cluster  Cluster  `yaml:"cluster"`
	NearDup  NearDup  `yaml:"neardup"`
	Related  Related  `yaml:"related"`
	Routing  Routing  `yaml:"routing"`
	Report   Report   `yaml:"report"`
}

// Default returns the configuration used when no file is given.
func Default() Config {
	p := invindex.DefaultParams()
	return Config{
		DataDir: ".data/index",
		Log:     Log{Level: "info", Format: "auto"},
		Engine: Engine{
			WindowWords:     p.WindowWords,
			ChunkBits:       p.ChunkBits,
			StripDiacritics: p.StripDiacritics,
			MinShared:       0, // auto: grows with the archive (AutoMinShared)
			TopK:            100,
			DFCap:           0,
			Nodes:           0,
			BatchSize:       100,
		},
		Schedule: Schedule{Cron: "*/5 * * * *", Prompt: true, Debounce: 10 * time.Second, Poll: 30 * time.Second},
		HTTP: HTTP{Listen: "127.0.0.1:8080", SessionTTL: 12 * time.Hour, CookieSecure: "auto",
			MaxRequestBytes: 16 << 20, MaxFormBytes: 64 << 10, ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout: 60 * time.Second, UploadTimeout: 30 * time.Minute, WriteTimeout: 10 * time.Minute,
			IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10, MaxConcurrentUploads: 4},
		Auth: Auth{LoginAttempts: 5, LoginAttemptsPerAddress: 50, LoginAttemptsPerName: 20,
			LoginMaxBackoff: 15 * time.Minute, ThrottleEntries: 100_000, HashQueue: 32},
		Extract: Extract{MaxBytes: 200 << 20, Timeout: 60 * time.Second,
			Isolate: true, Workers: 0, MemoryLimit: sandbox.DefaultMemoryLimit, Recycle: sandbox.DefaultRecycle,
			PDFEngine: string(extract.PDFEnginePDFium),
			OCR:       OCR{Tesseract: "tesseract", Languages: []string{"ces", "eng"}},
			Limits: Limits{MaxPages: extract.DefaultMaxPages, MaxXObjectDepth: extract.DefaultMaxXObjectDepth,
				MaxXObjectCalls: extract.DefaultMaxXObjectCalls, MaxGlyphs: extract.DefaultMaxGlyphs,
				MaxStreamBytes: extract.DefaultMaxStreamBytes, MaxXMLToken: extract.DefaultMaxXMLToken,
				MaxTextBytes: extract.DefaultMaxTextBytes}},
		Cluster: Cluster{Nodes: []string{}, CallTimeout: 5 * time.Minute},
		NearDup: NearDup{Distance: 3, Budget: 64, SampleDocs: 10000},
		Related: Related{K: 20, Margin: 10, MaxTerms: 200, Method: "exact", Lambda: 8, Sigma: 0.6, Languages: []string{}},
		Report:  Report{SentenceDice: report.DefaultSentenceDice},
		Routing: Routing{Enabled: false, Partitions: 128, M: 4, Candidates: 50},
	}
}

// Load reads path (if not empty) over the defaults, then applies the
// environment, then validates.
func Load(path string) (Config, error) {
	cfg := Default()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("read config: %w", err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil {
			return cfg, fmt.Errorf("config %s: %w (see configs/plagd.yaml for the format)", path, err)
		}
	}
	if err := cfg.ApplyEnv(os.Getenv); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// Params returns the invindex parameters the index is built with.
func (c *Config) Params() invindex.Params { return c.Engine.Params() }

// Params returns the invindex parameters of the engine section that do not
// depend on the archive: extra_window_words only when it is set (positive),
// no second chunk kind when it is auto or off. The index of a run is built
// with ParamsFor its archive.
func (e *Engine) Params() invindex.Params {
	return invindex.Params{
		WindowWords:      e.WindowWords,
		ChunkBits:        e.ChunkBits,
		StripDiacritics:  e.StripDiacritics,
		ExtraWindowWords: max(e.ExtraWindowWords, 0),
	}
}

// ParamsFor returns the invindex parameters a run over liveDocs documents
// builds its index with: Params with extra_window_words resolved
// (ExtraWindowWordsFor).
func (e *Engine) ParamsFor(liveDocs int) invindex.Params {
	p := e.Params()
	p.ExtraWindowWords = e.ExtraWindowWordsFor(liveDocs)
	return p
}

// ExtraWindowWordsFor is the length of the second chunk kind a run over
// liveDocs documents uses: 0 (none) when extra_window_words is -1, the
// configured length when positive, AutoExtraWindowWords when 0 (auto).
func (e *Engine) ExtraWindowWordsFor(liveDocs int) int {
	switch {
	case e.ExtraWindowWords < 0:
		return 0
	case e.ExtraWindowWords > 0:
		return e.ExtraWindowWords
	}
	n := AutoExtraWindowWords(liveDocs)
	if n >= e.WindowWords {
		// Windows of window_words words are short already.
		return 0
	}
	return n
}

// AutoExtraWindowsBelow is the archive size (live documents) from which
// AutoExtraWindowWords adds no second chunk kind.
const AutoExtraWindowsBelow = 2_000

// AutoExtraWindowWords is engine.extra_window_words for an archive of live
// documents when the configuration says 0 (auto): 3-word windows as a
// second chunk kind below 2,000 documents, none beyond. A reworded copy
// (synonyms, reordered clauses) keeps few runs of five identical words but
// many of three, so the second kind finds its source where the 5-word
// windows alone do not: every source of the pan-id corpus in the
// similarity lists instead of 82 %, and short answers that paraphrase an
// encyclopaedia source told from original ones with ROC AUC 0.997 instead
// of 0.98 (docs/QUALITY.md). It doubles the postings, and with them the
// index's memory and the counting's time, which a class, a course or an
// evaluation corpus does not notice and a university's archive does; the
// threshold is where AutoDFCap stops being relative. Like AutoMinShared it
// moves in a step: a run records the value it used, and when the archive
// crosses it the next run is full.
func AutoExtraWindowWords(liveDocs int) int {
	if liveDocs < AutoExtraWindowsBelow {
		return 3
	}
	return 0
}

// NodeCount resolves engine.nodes = 0 to the number of CPUs.
func (c *Config) NodeCount() int {
	if c.Engine.Nodes > 0 {
		return c.Engine.Nodes
	}
	return runtime.NumCPU()
}

// AutoMinShared is engine.min_shared for an archive of live documents when the
// configuration says 0 (auto). Chunks carry fingerprints, so hash collisions
// almost never make two documents share a chunk; what does grow with the
// archive is genuine sharing of common phrases ("at the end of the"), which
// fills top-k lists with one-chunk pairs that are no evidence of copying and
// makes every run write and patch more rows. One shared chunk counts while the
// archive is small (where one copied sentence matters most), more as it grows.
// A run records the value it used; when the archive crosses a threshold the
// next run is full, so results stay exact.
func AutoMinShared(liveDocs int) int {
	switch {
	case liveDocs < 10_000:
		return 1
	case liveDocs < 100_000:
		return 2
	case liveDocs < 1_000_000:
		return 3
	}
	return 4
}

// AutoDFCap is engine.df_cap for an archive of live documents when the
// configuration says 0 (auto): the document frequency above which a chunk
// is common text (a faculty declaration, an assignment prompt, a stock
// phrase) rather than evidence of copying. It is relative while the archive
// is small (about 2 to 5 % of it, never below 10 documents, so that a
// template in a few dozen essays is caught) and absolute beyond 2,000
// documents: 100, which bounds what one chunk costs in counting (the square
// of its frequency) and still leaves a source copied by up to 100 documents
// counted. Like AutoMinShared it moves in steps; a run records the value it
// used, and the run after a step is full, so results stay exact.
func AutoDFCap(liveDocs int) int {
	switch {
	case liveDocs < 500:
		return 10
	case liveDocs < 1_000:
		return 25
	case liveDocs < 2_000:
		return 50
	}
	return 100
}

// DFCapFor is the df cap a run over liveDocs documents uses: 0 when
// df_cap is -1 (every chunk counts), the configured value when positive,
// AutoDFCap when 0.
func (e Engine) DFCapFor(liveDocs int) int {
	switch {
	case e.DFCap < 0:
		return 0
	case e.DFCap > 0:
		return e.DFCap
	}
	return AutoDFCap(liveDocs)
}
