package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/related"
)

// Routing is the content-routed feature index of live checks
// (docs/ROUTING.md).
type Routing struct {
	// Enabled makes live checks ("check a file now", plagd check, the API)
	// take their candidates from the routed feature index and compare only
	// those chunk by chunk, instead of counting the text against the whole
	// chunk index. Off by default: a document meets the query in a
	// partition with probability about 1-(1-s)^m for Jaccard s, so near
	// copies are found but a text that copies a few paragraphs (s of a few
	// %) mostly is not. The routed comparison leaves common text (chunks
	// over engine.df_cap) out as the index does.
	Enabled bool `yaml:"enabled"`
	// Partitions is K, the partitions of the feature index; M is how many
	// of a document's smallest features route it (to at most M partitions).
	Partitions int `yaml:"partitions"`
	M          int `yaml:"m"`
	// Candidates is how many documents, best by Jaccard of the features,
	// are compared chunk by chunk.
	Candidates int `yaml:"candidates"`
	// AllPartitions queries every partition: the full recall of the
	// feature index, at the cost of visiting all of it.
	AllPartitions bool `yaml:"all_partitions"`
}

// Related tunes "related documents by topic": top-k cosine of TF-IDF
// vectors (docs/RELATED.md).
type Related struct {
	// K is how many related documents are kept per document.
	K int `yaml:"k"`
	// Margin is how many more members below the k-th the engine keeps in
	// memory per list, so that an incremental run refills a list that lost
	// members instead of joining its document with the whole archive.
	Margin int `yaml:"margin"`
	// MaxTerms is how many of a document's heaviest TF-IDF terms its vector
	// keeps (0: every term), from 100 documents on. Changing it makes the
	// next run full.
	MaxTerms int `yaml:"max_terms"`
	// Method computes the lists in full runs: "exact" (an inverted-index
	// cosine join) or "zolip" (Alewiwi et al.'s Z-order prefix filtering: 5-8x
	// faster than exact on 100k short topic-structured documents, but 11x
	// slower on 20k long generated ones without topics: docs/RELATED.md).
	// Incremental runs update the lists they touch exactly either way.
	Method string `yaml:"method"`
	// Lambda and Sigma are ZOLIP's λ (prefix bits) and σ (the cosine a
	// document's projection must keep).
	Lambda int     `yaml:"lambda"`
	Sigma  float64 `yaml:"sigma"`
	// Languages are the candidates of the per-document language guess
	// (stop words and stemmer); empty: all the analyser knows.
	Languages []string `yaml:"languages"`
}

// NearDup tunes near-duplicate detection with simhash (docs/NEARDUP.md).
type NearDup struct {
	// Distance is h: documents whose 64-bit simhashes differ in at most this
	// many bits are near-duplicates (the paper's 3).
	Distance int `yaml:"distance"`
	// Budget is the header lookups a query may make (PSM with VOSH, the
	// most likely first); 0 makes every query exact. Upload checks and
	// reports ask one query each; `plagd dups` one per document.
	Budget int `yaml:"budget"`
	// SampleDocs is how many documents a model rebuild counts words in.
	SampleDocs int `yaml:"sample_docs"`
}

// Cluster makes runs use remote `plagd node` processes instead of
// in-process nodes. The master and the nodes read the same section: the
// master its client side, a node its server side.
type Cluster struct {
	// Nodes are the host:port addresses of the `plagd node` processes; empty
	// means in-process nodes (engine.nodes).
	Nodes []string `yaml:"nodes"`
	// SecretFile holds the shared secret (at least 16 bytes) sent on every call.
	SecretFile string `yaml:"secret_file"`
	// TLSCert and TLSKey are this process's certificate (the master's client
	// certificate, a node's server certificate), both signed by TLSCA, the
	// only CA trusted. All three or none.
	TLSCert string `yaml:"tls_cert"`
	TLSKey  string `yaml:"tls_key"`
	TLSCA   string `yaml:"tls_ca"`
	// CallTimeout is the deadline of one call to a node.
	CallTimeout time.Duration `yaml:"call_timeout"`
	// Insecure allows neither secret nor TLS: loopback tests only.
	Insecure bool `yaml:"insecure"`
}

// Log controls zerolog output.
type Log struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // json, console, or auto (console on a terminal)
}

// Engine holds the similarity engine parameters. Changing window_words,
// chunk_bits or strip_diacritics invalidates the index: the next run is full.
type Engine struct {
	WindowWords      int  `yaml:"window_words"`       // words per chunk (N), default 5
	ChunkBits        uint `yaml:"chunk_bits"`         // chunk-ID width, 20..32, default 28
	StripDiacritics  bool `yaml:"strip_diacritics"`   // fold "é" to "e" before hashing
	ExtraWindowWords int  `yaml:"extra_window_words"` // a second chunk kind of this many words; 0 = auto (ExtraWindowWordsFor), -1 = off
	MinShared        int  `yaml:"min_shared"`         // a pair is kept only with at least this many shared chunks; 0 = auto (AutoMinShared)
	TopK             int  `yaml:"top_k"`              // similarity rows kept per document, default 100
	DFCap            int  `yaml:"df_cap"`             // chunks in more documents than this are common text, not counted; 0 = auto (AutoDFCap), -1 = off
	Nodes            int  `yaml:"nodes"`              // in-process nodes (chunk-ID ranges); 0 = number of CPUs
	BatchSize        int  `yaml:"batch_size"`         // documents per dispatched batch, default 100
}

// Schedule drives the daemon's runs.
type Schedule struct {
	Cron     string        `yaml:"cron"`      // robfig/cron spec, default "*/5 * * * *"; empty disables
	Prompt   bool          `yaml:"prompt"`    // also run shortly after changes are noticed (LISTEN/NOTIFY)
	Debounce time.Duration `yaml:"debounce"`  // quiet time after the last change before a prompt run
	Poll     time.Duration `yaml:"poll"`      // fallback polling of the change log when notifications are missed
	LockWait bool          `yaml:"lock_wait"` // a second master waits for the lock instead of exiting
}

// HTTP is the daemon's HTTP listener (web pages, JSON API, /healthz,
// /readyz, /metrics) and its browser sessions.
type HTTP struct {
	Listen string `yaml:"listen"` // default "127.0.0.1:8080"
	// SessionTTL is how long a login lasts without use; each use extends it.
	SessionTTL time.Duration `yaml:"session_ttl"` // default 12h
	// CookieSecure: "auto" (Secure unless the request is plain HTTP to a
	// loopback address, so `make up` works on http://127.0.0.1), "always"
	// or "never" (only behind a proxy that strips TLS on a trusted network).
	CookieSecure string `yaml:"cookie_secure"` // default "auto"
	// MaxRequestBytes bounds a JSON request body; uploads are bounded by
	// extract.max_bytes per file.
	MaxRequestBytes int64 `yaml:"max_request_bytes"` // default 16 MiB
	// MaxFormBytes bounds the body of every request that takes no upload
	// (sign-in, forms without a file, the API's small JSON calls) and of
	// every request whose caller is not yet known: nothing larger is read.
	MaxFormBytes int64 `yaml:"max_form_bytes"` // default 64 KiB
	// ReadHeaderTimeout: the request line and headers must arrive within it.
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"` // default 10s
	// ReadTimeout: a whole request, body included, must arrive within it;
	// an upload by a signed-in caller allowed to upload gets UploadTimeout
	// instead (the guard extends the connection's read deadline once the
	// caller's role is known).
	ReadTimeout time.Duration `yaml:"read_timeout"` // default 60s
	// UploadTimeout is the time a permitted upload's body may take: 30m
	// carries extract.max_bytes (200 MiB) at about 115 KB/s.
	UploadTimeout time.Duration `yaml:"upload_timeout"` // default 30m
	// WriteTimeout bounds handling a request and writing its answer (an
	// upload gets UploadTimeout more). It must exceed extract.timeout.
	WriteTimeout time.Duration `yaml:"write_timeout"` // default 10m
	// IdleTimeout closes a keep-alive connection without a request.
	IdleTimeout time.Duration `yaml:"idle_timeout"` // default 2m
	// MaxHeaderBytes bounds the request line and headers.
	MaxHeaderBytes int `yaml:"max_header_bytes"` // default 64 KiB
	// MaxConcurrentUploads is how many uploads and file checks are read and
	// processed at once; one more is answered 503 with Retry-After.
	MaxConcurrentUploads int `yaml:"max_concurrent_uploads"` // default 4
}

// Auth bounds what signing in may cost: the login throttle (failed
// attempts before each further attempt waits, doubling up to
// LoginMaxBackoff) and the password hashes computed at once (each argon2id
// hash holds 19 MiB for some 30 ms).
type Auth struct {
	// LoginAttempts is the failed attempts allowed for one user name from
	// one address before the doubling wait starts.
	LoginAttempts int `yaml:"login_attempts"` // default 5
	// LoginAttemptsPerAddress is the same for all names from one address
	// (a spray of names), LoginAttemptsPerName for one name from all
	// addresses (a distributed guess).
	LoginAttemptsPerAddress int `yaml:"login_attempts_per_address"` // default 50
	LoginAttemptsPerName    int `yaml:"login_attempts_per_name"`    // default 20
	// LoginMaxBackoff is the longest wait the throttle imposes.
	LoginMaxBackoff time.Duration `yaml:"login_max_backoff"` // default 15m
	// ThrottleEntries bounds the throttle's table; when full, the least
	// recently used entry that is not blocking anyone is dropped.
	ThrottleEntries int `yaml:"throttle_entries"` // default 100000
	// MaxConcurrentHashes is how many password hashes run at once (0: the
	// number of CPUs, at most 4); HashQueue how many more may wait for one
	// before a sign-in is answered 503.
	MaxConcurrentHashes int `yaml:"max_concurrent_hashes"` // default 0 (auto)
	HashQueue           int `yaml:"hash_queue"`            // default 32
}

// Extract limits text extraction.
type Extract struct {
	MaxBytes int64         `yaml:"max_bytes"` // larger files fail with a reason, default 200 MB
	Timeout  time.Duration `yaml:"timeout"`   // per document, default 60s
	// Isolate reads files in child processes that are killed when a file
	// costs more than its limits (extract/sandbox); false reads them in
	// plagd's own process, where a hostile file can take it down.
	Isolate     bool  `yaml:"isolate"`      // default true
	Workers     int   `yaml:"workers"`      // concurrent extractions per process; 0 = number of CPUs
	MemoryLimit int64 `yaml:"memory_limit"` // bytes one extraction process may use, default 1 GiB
	Recycle     int   `yaml:"recycle"`      // documents an extraction process reads before it is replaced, default 1000
	// PDFEngine reads PDFs: "pdfium" (default) or "go" (extract.PDFEngine).
	PDFEngine string `yaml:"pdf_engine"`
	// OCR of image-only (scanned) PDFs with the tesseract program.
	OCR OCR `yaml:"ocr"`
	// Limits bound the work of one document (extract.Limits); 0 = default.
	Limits Limits `yaml:"limits"`
}

// Limits is extract.Limits in the configuration (docs/EXTRACTION.md,
// "Limits"): a document over any of them fails as too_complex.
type Limits struct {
	MaxPages        int   `yaml:"max_pages"`
	MaxXObjectDepth int   `yaml:"max_xobject_depth"`
	MaxXObjectCalls int   `yaml:"max_xobject_calls"`
	MaxGlyphs       int   `yaml:"max_glyphs"`
	MaxStreamBytes  int64 `yaml:"max_stream_bytes"`
	MaxXMLToken     int   `yaml:"max_xml_token"`
	MaxTextBytes    int   `yaml:"max_text_bytes"`
}

// OCR enables OCR of scanned PDFs.
type OCR struct {
	Enabled   bool     `yaml:"enabled"`   // default false: scans fail as "no text layer"
	Tesseract string   `yaml:"tesseract"` // program path, default "tesseract" (looked up in PATH)
	Languages []string `yaml:"languages"` // tesseract language codes, default [ces, eng]
}

// ExtractOptions are the extract package's options for this configuration.
func (c *Config) ExtractOptions() extract.Options {
	l := c.Extract.Limits
	opt := extract.Options{MaxBytes: c.Extract.MaxBytes, Timeout: c.Extract.Timeout, Limits: extract.Limits{
		MaxPages: l.MaxPages, MaxXObjectDepth: l.MaxXObjectDepth, MaxXObjectCalls: l.MaxXObjectCalls,
		MaxGlyphs: l.MaxGlyphs, MaxStreamBytes: l.MaxStreamBytes, MaxXMLToken: l.MaxXMLToken, MaxTextBytes: l.MaxTextBytes}}
	opt.PDFEngine, _ = extract.ParsePDFEngine(c.Extract.PDFEngine) // checked by Validate
	if c.Extract.OCR.Enabled {
		opt.OCR = extract.OCROptions{Tesseract: c.Extract.OCR.Tesseract, Languages: c.Extract.OCR.Languages}
	}
	return opt
}

// SandboxConfig is the extraction pool's configuration (extract/sandbox).
func (c *Config) SandboxConfig() sandbox.Config {
	return sandbox.Config{Workers: c.Extract.Workers, MemoryLimit: c.Extract.MemoryLimit, Timeout: c.Extract.Timeout,
		Recycle: c.Extract.Recycle, Isolate: c.Extract.Isolate}
}

// Langs are the related.languages as the analyser's languages (nil: all).
func (c *Related) Langs() ([]related.Lang, error) {
	var out []related.Lang
	for _, name := range c.Languages {
		l, ok := related.ParseLang(strings.ToLower(name))
		if !ok {
			return nil, fmt.Errorf("related.languages: %q is not a language the analyser knows (%s)", name, langNames())
		}
		out = append(out, l)
	}
	return out, nil
}

func langNames() string {
	var names []string
	for _, l := range related.AllLangs {
		names = append(names, l.String())
	}
	return strings.Join(names, ", ")
}

// Report tunes the passages of similarity reports (package report).
type Report struct {
	// SentenceDice is the Dice coefficient of content terms at which two
	// sentences seed a passage (passage.Options.SentenceDice): reworded
	// copies show in reports. 0 turns sentence seeds off (windows only),
	// which costs reports half their time on reworded text and recall on
	// it (docs/QUALITY.md).
	SentenceDice float64 `yaml:"sentence_dice"`
}
