package daemon

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/plagd/plagd/cluster/remote"
	"github.com/plagd/plagd/extract"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/invindex"
	"github.com/plagd/plagd/related"
)

// Config is plagd's whole configuration. It is read from one YAML file
// (configs/plagd.yaml documents every field) and then overridden by
// environment variables named PLAGD_<SECTION>_<FIELD> (see ApplyEnv).
type Config struct {
	// DatabaseURL is a PostgreSQL connection string. Overridden by
	// PLAGD_DATABASE_URL, then DATABASE_URL, then the --database flag.
	DatabaseURL string `yaml:"database_url"`
	// DataDir holds the persisted index generations (versioned, checksummed files).
	DataDir  string         `yaml:"data_dir"`
	Log      LogConfig      `yaml:"log"`
	Engine   EngineConfig   `yaml:"engine"`
	Schedule ScheduleConfig `yaml:"schedule"`
	HTTP     HTTPConfig     `yaml:"http"`
	Auth     AuthConfig     `yaml:"auth"`
	Extract  ExtractConfig  `yaml:"extract"`
	Cluster  ClusterConfig  `yaml:"cluster"`
	NearDup  NearDupConfig  `yaml:"neardup"`
	Related  RelatedConfig  `yaml:"related"`
	Routing  RoutingConfig  `yaml:"routing"`
}

// RoutingConfig is the content-routed feature index of live checks
// (docs/ROUTING.md).
type RoutingConfig struct {
	// Enabled makes live checks ("check a file now", plagd check, the API)
	// take their candidates from the routed feature index and compare only
	// those chunk by chunk, instead of counting the text against the whole
	// chunk index. Off by default: a document meets the query in a
	// partition with probability about 1-(1-s)^m for Jaccard s, so near
	// copies are found but a text that copies a few paragraphs (s of a few
	// %) mostly is not. Ignored while engine.df_cap is set (the routed
	// comparison does not know the chunks' document frequencies).
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

// RelatedConfig tunes "related documents by topic": top-k cosine of TF-IDF
// vectors (docs/RELATED.md).
type RelatedConfig struct {
	// K is how many related documents are kept per document.
	K int `yaml:"k"`
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

// NearDupConfig tunes near-duplicate detection with simhash (docs/NEARDUP.md).
type NearDupConfig struct {
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

// ClusterConfig makes runs use remote `plagd node` processes instead of
// in-process nodes. The master and the nodes read the same section: the
// master its client side, a node its server side.
type ClusterConfig struct {
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

// Security is the cluster's authentication, reading the secret file if set.
func (c *ClusterConfig) Security() (remote.Security, error) {
	sec := remote.Security{CertFile: c.TLSCert, KeyFile: c.TLSKey, CAFile: c.TLSCA, Insecure: c.Insecure}
	if c.SecretFile != "" {
		b, err := remote.ReadSecret(c.SecretFile)
		if err != nil {
			return sec, fmt.Errorf("cluster.secret_file: %w", err)
		}
		sec.Secret = b
	}
	return sec, nil
}

// LogConfig controls zerolog output.
type LogConfig struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // json, console, or auto (console on a terminal)
}

// EngineConfig holds the similarity engine parameters. Changing window_words,
// chunk_bits or strip_diacritics invalidates the index: the next run is full.
type EngineConfig struct {
	WindowWords      int  `yaml:"window_words"`       // words per chunk (N), default 5
	ChunkBits        uint `yaml:"chunk_bits"`         // chunk-ID width, 20..32, default 28
	StripDiacritics  bool `yaml:"strip_diacritics"`   // fold "é" to "e" before hashing
	ExtraWindowWords int  `yaml:"extra_window_words"` // a second chunk kind of this many words; 0 = off
	MinShared        int  `yaml:"min_shared"`         // a pair is kept only with at least this many shared chunks; 0 = auto (AutoMinShared)
	TopK             int  `yaml:"top_k"`              // similarity rows kept per document, default 100
	DFCap            int  `yaml:"df_cap"`             // chunks in more documents than this are not counted; 0 = off
	Nodes            int  `yaml:"nodes"`              // in-process nodes (chunk-ID ranges); 0 = number of CPUs
	BatchSize        int  `yaml:"batch_size"`         // documents per dispatched batch, default 100
}

// ScheduleConfig drives the daemon's runs.
type ScheduleConfig struct {
	Cron     string        `yaml:"cron"`      // robfig/cron spec, default "*/5 * * * *"; empty disables
	Prompt   bool          `yaml:"prompt"`    // also run shortly after changes are noticed (LISTEN/NOTIFY)
	Debounce time.Duration `yaml:"debounce"`  // quiet time after the last change before a prompt run
	Poll     time.Duration `yaml:"poll"`      // fallback polling of the change log when notifications are missed
	LockWait bool          `yaml:"lock_wait"` // a second master waits for the lock instead of exiting
}

// HTTPConfig is the daemon's HTTP listener (web pages, JSON API, /healthz,
// /readyz, /metrics) and its browser sessions.
type HTTPConfig struct {
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

// AuthConfig bounds what signing in may cost: the login throttle (failed
// attempts before each further attempt waits, doubling up to
// LoginMaxBackoff) and the password hashes computed at once (each argon2id
// hash holds 19 MiB for some 30 ms).
type AuthConfig struct {
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

// ExtractConfig limits text extraction.
type ExtractConfig struct {
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
	OCR OCRConfig `yaml:"ocr"`
	// Limits bound the work of one document (extract.Limits); 0 = default.
	Limits LimitsConfig `yaml:"limits"`
}

// LimitsConfig is extract.Limits in the configuration (docs/EXTRACTION.md,
// "Limits"): a document over any of them fails as too_complex.
type LimitsConfig struct {
	MaxPages        int   `yaml:"max_pages"`
	MaxXObjectDepth int   `yaml:"max_xobject_depth"`
	MaxXObjectCalls int   `yaml:"max_xobject_calls"`
	MaxGlyphs       int   `yaml:"max_glyphs"`
	MaxStreamBytes  int64 `yaml:"max_stream_bytes"`
	MaxXMLToken     int   `yaml:"max_xml_token"`
	MaxTextBytes    int   `yaml:"max_text_bytes"`
}

// OCRConfig enables OCR of scanned PDFs.
type OCRConfig struct {
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

// DefaultConfig returns the configuration used when no file is given.
func DefaultConfig() Config {
	p := invindex.DefaultParams()
	return Config{
		DataDir: ".data/index",
		Log:     LogConfig{Level: "info", Format: "auto"},
		Engine: EngineConfig{
			WindowWords:     p.WindowWords,
			ChunkBits:       p.ChunkBits,
			StripDiacritics: p.StripDiacritics,
			MinShared:       0, // auto: grows with the archive (AutoMinShared)
			TopK:            100,
			DFCap:           0,
			Nodes:           0,
			BatchSize:       100,
		},
		Schedule: ScheduleConfig{Cron: "*/5 * * * *", Prompt: true, Debounce: 10 * time.Second, Poll: 30 * time.Second},
		HTTP: HTTPConfig{Listen: "127.0.0.1:8080", SessionTTL: 12 * time.Hour, CookieSecure: "auto",
			MaxRequestBytes: 16 << 20, MaxFormBytes: 64 << 10, ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout: 60 * time.Second, UploadTimeout: 30 * time.Minute, WriteTimeout: 10 * time.Minute,
			IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10, MaxConcurrentUploads: 4},
		Auth: AuthConfig{LoginAttempts: 5, LoginAttemptsPerAddress: 50, LoginAttemptsPerName: 20,
			LoginMaxBackoff: 15 * time.Minute, ThrottleEntries: 100_000, HashQueue: 32},
		Extract: ExtractConfig{MaxBytes: 200 << 20, Timeout: 60 * time.Second,
			Isolate: true, Workers: 0, MemoryLimit: sandbox.DefaultMemoryLimit, Recycle: sandbox.DefaultRecycle,
			PDFEngine: string(extract.PDFEnginePDFium),
			OCR:       OCRConfig{Tesseract: "tesseract", Languages: []string{"ces", "eng"}},
			Limits: LimitsConfig{MaxPages: extract.DefaultMaxPages, MaxXObjectDepth: extract.DefaultMaxXObjectDepth,
				MaxXObjectCalls: extract.DefaultMaxXObjectCalls, MaxGlyphs: extract.DefaultMaxGlyphs,
				MaxStreamBytes: extract.DefaultMaxStreamBytes, MaxXMLToken: extract.DefaultMaxXMLToken,
				MaxTextBytes: extract.DefaultMaxTextBytes}},
		Cluster: ClusterConfig{Nodes: []string{}, CallTimeout: 5 * time.Minute},
		NearDup: NearDupConfig{Distance: 3, Budget: 64, SampleDocs: 10000},
		Related: RelatedConfig{K: 10, Method: "exact", Lambda: 8, Sigma: 0.6, Languages: []string{}},
		Routing: RoutingConfig{Enabled: false, Partitions: 128, M: 4, Candidates: 50},
	}
}

// LoadConfig reads path (if not empty) over the defaults, then applies the
// environment, then validates.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
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

// ApplyEnv overrides fields from environment variables. The database URL comes
// from PLAGD_DATABASE_URL or DATABASE_URL; other fields from PLAGD_<SECTION>_<FIELD>,
// e.g. PLAGD_ENGINE_MIN_SHARED=5, PLAGD_HTTP_LISTEN=:9000, PLAGD_DATA_DIR=/var/lib/plagd.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if v := getenv("PLAGD_DATABASE_URL"); v != "" {
		c.DatabaseURL = v
	} else if v := getenv("DATABASE_URL"); v != "" && c.DatabaseURL == "" {
		c.DatabaseURL = v
	}
	var firstErr error
	set := func(name string, apply func(string) error) {
		v := getenv(name)
		if v == "" {
			return
		}
		if err := apply(v); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("environment %s=%q: %w", name, v, err)
		}
	}
	str := func(dst *string) func(string) error { return func(v string) error { *dst = v; return nil } }
	num := func(dst *int) func(string) error {
		return func(v string) error { n, err := strconv.Atoi(v); *dst = n; return err }
	}
	boolean := func(dst *bool) func(string) error {
		return func(v string) error { b, err := strconv.ParseBool(v); *dst = b; return err }
	}
	dur := func(dst *time.Duration) func(string) error {
		return func(v string) error { d, err := time.ParseDuration(v); *dst = d; return err }
	}
	set("PLAGD_DATA_DIR", str(&c.DataDir))
	set("PLAGD_LOG_LEVEL", str(&c.Log.Level))
	set("PLAGD_LOG_FORMAT", str(&c.Log.Format))
	set("PLAGD_ENGINE_WINDOW_WORDS", num(&c.Engine.WindowWords))
	set("PLAGD_ENGINE_CHUNK_BITS", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 8)
		c.Engine.ChunkBits = uint(n)
		return err
	})
	set("PLAGD_ENGINE_STRIP_DIACRITICS", boolean(&c.Engine.StripDiacritics))
	set("PLAGD_ENGINE_EXTRA_WINDOW_WORDS", num(&c.Engine.ExtraWindowWords))
	set("PLAGD_ENGINE_MIN_SHARED", num(&c.Engine.MinShared))
	set("PLAGD_ENGINE_TOP_K", num(&c.Engine.TopK))
	set("PLAGD_ENGINE_DF_CAP", num(&c.Engine.DFCap))
	set("PLAGD_ENGINE_NODES", num(&c.Engine.Nodes))
	set("PLAGD_ENGINE_BATCH_SIZE", num(&c.Engine.BatchSize))
	set("PLAGD_SCHEDULE_CRON", str(&c.Schedule.Cron))
	set("PLAGD_SCHEDULE_PROMPT", boolean(&c.Schedule.Prompt))
	set("PLAGD_SCHEDULE_DEBOUNCE", dur(&c.Schedule.Debounce))
	set("PLAGD_SCHEDULE_POLL", dur(&c.Schedule.Poll))
	set("PLAGD_SCHEDULE_LOCK_WAIT", boolean(&c.Schedule.LockWait))
	set("PLAGD_HTTP_LISTEN", str(&c.HTTP.Listen))
	set("PLAGD_HTTP_SESSION_TTL", dur(&c.HTTP.SessionTTL))
	set("PLAGD_HTTP_COOKIE_SECURE", str(&c.HTTP.CookieSecure))
	set("PLAGD_HTTP_MAX_REQUEST_BYTES", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		c.HTTP.MaxRequestBytes = n
		return err
	})
	set("PLAGD_HTTP_MAX_FORM_BYTES", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		c.HTTP.MaxFormBytes = n
		return err
	})
	set("PLAGD_HTTP_READ_HEADER_TIMEOUT", dur(&c.HTTP.ReadHeaderTimeout))
	set("PLAGD_HTTP_READ_TIMEOUT", dur(&c.HTTP.ReadTimeout))
	set("PLAGD_HTTP_UPLOAD_TIMEOUT", dur(&c.HTTP.UploadTimeout))
	set("PLAGD_HTTP_WRITE_TIMEOUT", dur(&c.HTTP.WriteTimeout))
	set("PLAGD_HTTP_IDLE_TIMEOUT", dur(&c.HTTP.IdleTimeout))
	set("PLAGD_HTTP_MAX_HEADER_BYTES", num(&c.HTTP.MaxHeaderBytes))
	set("PLAGD_HTTP_MAX_CONCURRENT_UPLOADS", num(&c.HTTP.MaxConcurrentUploads))
	set("PLAGD_AUTH_LOGIN_ATTEMPTS", num(&c.Auth.LoginAttempts))
	set("PLAGD_AUTH_LOGIN_ATTEMPTS_PER_ADDRESS", num(&c.Auth.LoginAttemptsPerAddress))
	set("PLAGD_AUTH_LOGIN_ATTEMPTS_PER_NAME", num(&c.Auth.LoginAttemptsPerName))
	set("PLAGD_AUTH_LOGIN_MAX_BACKOFF", dur(&c.Auth.LoginMaxBackoff))
	set("PLAGD_AUTH_THROTTLE_ENTRIES", num(&c.Auth.ThrottleEntries))
	set("PLAGD_AUTH_MAX_CONCURRENT_HASHES", num(&c.Auth.MaxConcurrentHashes))
	set("PLAGD_AUTH_HASH_QUEUE", num(&c.Auth.HashQueue))
	set("PLAGD_EXTRACT_MAX_BYTES", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		c.Extract.MaxBytes = n
		return err
	})
	set("PLAGD_EXTRACT_TIMEOUT", dur(&c.Extract.Timeout))
	set("PLAGD_EXTRACT_ISOLATE", boolean(&c.Extract.Isolate))
	set("PLAGD_EXTRACT_PDF_ENGINE", str(&c.Extract.PDFEngine))
	set("PLAGD_EXTRACT_WORKERS", num(&c.Extract.Workers))
	set("PLAGD_EXTRACT_MEMORY_LIMIT", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		c.Extract.MemoryLimit = n
		return err
	})
	set("PLAGD_EXTRACT_RECYCLE", num(&c.Extract.Recycle))
	set("PLAGD_EXTRACT_OCR_ENABLED", boolean(&c.Extract.OCR.Enabled))
	set("PLAGD_EXTRACT_OCR_TESSERACT", str(&c.Extract.OCR.Tesseract))
	set("PLAGD_EXTRACT_OCR_LANGUAGES", func(v string) error { c.Extract.OCR.Languages = strings.Split(v, ","); return nil })
	limit := func(p *int) func(string) error {
		return func(v string) error { n, err := strconv.Atoi(v); *p = n; return err }
	}
	set("PLAGD_EXTRACT_LIMITS_MAX_PAGES", limit(&c.Extract.Limits.MaxPages))
	set("PLAGD_EXTRACT_LIMITS_MAX_XOBJECT_DEPTH", limit(&c.Extract.Limits.MaxXObjectDepth))
	set("PLAGD_EXTRACT_LIMITS_MAX_XOBJECT_CALLS", limit(&c.Extract.Limits.MaxXObjectCalls))
	set("PLAGD_EXTRACT_LIMITS_MAX_GLYPHS", limit(&c.Extract.Limits.MaxGlyphs))
	set("PLAGD_EXTRACT_LIMITS_MAX_STREAM_BYTES", func(v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		c.Extract.Limits.MaxStreamBytes = n
		return err
	})
	set("PLAGD_EXTRACT_LIMITS_MAX_XML_TOKEN", limit(&c.Extract.Limits.MaxXMLToken))
	set("PLAGD_EXTRACT_LIMITS_MAX_TEXT_BYTES", limit(&c.Extract.Limits.MaxTextBytes))
	set("PLAGD_CLUSTER_NODES", func(v string) error {
		c.Cluster.Nodes = c.Cluster.Nodes[:0:0]
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a != "" {
				c.Cluster.Nodes = append(c.Cluster.Nodes, a)
			}
		}
		return nil
	})
	set("PLAGD_CLUSTER_SECRET_FILE", str(&c.Cluster.SecretFile))
	set("PLAGD_CLUSTER_TLS_CERT", str(&c.Cluster.TLSCert))
	set("PLAGD_CLUSTER_TLS_KEY", str(&c.Cluster.TLSKey))
	set("PLAGD_CLUSTER_TLS_CA", str(&c.Cluster.TLSCA))
	set("PLAGD_CLUSTER_CALL_TIMEOUT", dur(&c.Cluster.CallTimeout))
	set("PLAGD_CLUSTER_INSECURE", boolean(&c.Cluster.Insecure))
	set("PLAGD_NEARDUP_DISTANCE", num(&c.NearDup.Distance))
	set("PLAGD_NEARDUP_BUDGET", num(&c.NearDup.Budget))
	set("PLAGD_NEARDUP_SAMPLE_DOCS", num(&c.NearDup.SampleDocs))
	set("PLAGD_RELATED_K", num(&c.Related.K))
	set("PLAGD_RELATED_METHOD", str(&c.Related.Method))
	set("PLAGD_RELATED_LAMBDA", num(&c.Related.Lambda))
	set("PLAGD_RELATED_SIGMA", func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		c.Related.Sigma = f
		return err
	})
	set("PLAGD_RELATED_LANGUAGES", func(v string) error { c.Related.Languages = splitList(v); return nil })
	set("PLAGD_ROUTING_ENABLED", boolean(&c.Routing.Enabled))
	set("PLAGD_ROUTING_PARTITIONS", num(&c.Routing.Partitions))
	set("PLAGD_ROUTING_M", num(&c.Routing.M))
	set("PLAGD_ROUTING_CANDIDATES", num(&c.Routing.Candidates))
	set("PLAGD_ROUTING_ALL_PARTITIONS", boolean(&c.Routing.AllPartitions))
	return firstErr
}

// Validate reports the first invalid field in words an operator can act on.
func (c *Config) Validate() error {
	if err := c.Params().Validate(); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	e := c.Engine
	switch {
	case e.MinShared < 0:
		return fmt.Errorf("engine.min_shared must be 0 (auto) or positive, got %d", e.MinShared)
	case e.TopK < 1:
		return fmt.Errorf("engine.top_k must be at least 1, got %d", e.TopK)
	case e.DFCap < 0:
		return fmt.Errorf("engine.df_cap must be 0 (off) or positive, got %d", e.DFCap)
	case e.Nodes < 0 || e.Nodes > 256:
		return fmt.Errorf("engine.nodes must be 0 (number of CPUs) to 256, got %d", e.Nodes)
	case e.BatchSize < 1:
		return fmt.Errorf("engine.batch_size must be at least 1, got %d", e.BatchSize)
	case c.Extract.MaxBytes < 1:
		return fmt.Errorf("extract.max_bytes must be positive")
	case c.Extract.Workers < 0 || c.Extract.Workers > 1024:
		return fmt.Errorf("extract.workers must be 0 (number of CPUs) to 1024, got %d", c.Extract.Workers)
	case c.Extract.MemoryLimit < 64<<20:
		return fmt.Errorf("extract.memory_limit must be at least 67108864 (64 MiB), got %d", c.Extract.MemoryLimit)
	case c.Extract.Recycle < 1:
		return fmt.Errorf("extract.recycle must be at least 1 document, got %d", c.Extract.Recycle)
	case !validPDFEngine(c.Extract.PDFEngine):
		_, err := extract.ParsePDFEngine(c.Extract.PDFEngine)
		return fmt.Errorf("extract.pdf_engine: %w", err)
	case c.HTTP.SessionTTL < time.Minute:
		return fmt.Errorf("http.session_ttl must be at least 1m, got %s", c.HTTP.SessionTTL)
	case c.HTTP.CookieSecure != "auto" && c.HTTP.CookieSecure != "always" && c.HTTP.CookieSecure != "never":
		return fmt.Errorf("http.cookie_secure must be auto, always or never, got %q", c.HTTP.CookieSecure)
	case c.HTTP.MaxRequestBytes < 1<<10:
		return fmt.Errorf("http.max_request_bytes must be at least 1024, got %d", c.HTTP.MaxRequestBytes)
	case c.HTTP.MaxFormBytes < 1<<10:
		return fmt.Errorf("http.max_form_bytes must be at least 1024, got %d", c.HTTP.MaxFormBytes)
	case c.HTTP.ReadHeaderTimeout <= 0 || c.HTTP.ReadTimeout <= 0 || c.HTTP.UploadTimeout <= 0 ||
		c.HTTP.WriteTimeout <= 0 || c.HTTP.IdleTimeout <= 0:
		return fmt.Errorf("http.read_header_timeout, read_timeout, upload_timeout, write_timeout and idle_timeout must be positive durations such as 30s")
	case c.HTTP.WriteTimeout <= c.Extract.Timeout:
		return fmt.Errorf("http.write_timeout (%s) must exceed extract.timeout (%s), or a check of a slow file is cut off", c.HTTP.WriteTimeout, c.Extract.Timeout)
	case c.HTTP.MaxHeaderBytes < 4<<10:
		return fmt.Errorf("http.max_header_bytes must be at least 4096, got %d", c.HTTP.MaxHeaderBytes)
	case c.HTTP.MaxConcurrentUploads < 1:
		return fmt.Errorf("http.max_concurrent_uploads must be at least 1, got %d", c.HTTP.MaxConcurrentUploads)
	case c.Auth.LoginAttempts < 1 || c.Auth.LoginAttemptsPerAddress < 1 || c.Auth.LoginAttemptsPerName < 1:
		return fmt.Errorf("auth.login_attempts, login_attempts_per_address and login_attempts_per_name must be at least 1")
	case c.Auth.LoginMaxBackoff < time.Second:
		return fmt.Errorf("auth.login_max_backoff must be at least 1s, got %s", c.Auth.LoginMaxBackoff)
	case c.Auth.ThrottleEntries < 100:
		return fmt.Errorf("auth.throttle_entries must be at least 100, got %d", c.Auth.ThrottleEntries)
	case c.Auth.MaxConcurrentHashes < 0 || c.Auth.HashQueue < 0:
		return fmt.Errorf("auth.max_concurrent_hashes (0: auto) and auth.hash_queue must not be negative")
	case c.NearDup.Distance < 0 || c.NearDup.Distance > 10:
		return fmt.Errorf("neardup.distance must be 0 to 10 bits, got %d (3 finds re-uploads and light edits)", c.NearDup.Distance)
	case c.NearDup.Budget < 0:
		return fmt.Errorf("neardup.budget must be 0 (exact) or positive, got %d", c.NearDup.Budget)
	case c.NearDup.SampleDocs < 100:
		return fmt.Errorf("neardup.sample_docs must be at least 100, got %d", c.NearDup.SampleDocs)
	case c.Related.K < 1 || c.Related.K > 100:
		return fmt.Errorf("related.k must be 1 to 100, got %d", c.Related.K)
	case c.Related.Method != "zolip" && c.Related.Method != "exact":
		return fmt.Errorf("related.method must be exact or zolip, got %q", c.Related.Method)
	case c.Related.Lambda < 1 || c.Related.Lambda > 63:
		return fmt.Errorf("related.lambda must be 1 to 63 bits, got %d", c.Related.Lambda)
	case c.Related.Sigma <= 0 || c.Related.Sigma > 1:
		return fmt.Errorf("related.sigma must be in (0, 1], got %g", c.Related.Sigma)
	case c.Routing.Partitions < 1 || c.Routing.Partitions > 4096:
		return fmt.Errorf("routing.partitions must be 1 to 4096, got %d", c.Routing.Partitions)
	case c.Routing.M < 1 || c.Routing.M > 64:
		return fmt.Errorf("routing.m must be 1 to 64, got %d", c.Routing.M)
	case c.Routing.Candidates < 1:
		return fmt.Errorf("routing.candidates must be at least 1, got %d", c.Routing.Candidates)
	}
	if _, err := c.Related.Langs(); err != nil {
		return err
	}
	return c.Cluster.Validate()
}

// Validate checks the cluster section.
func (c *ClusterConfig) Validate() error {
	tls := 0
	for _, f := range []string{c.TLSCert, c.TLSKey, c.TLSCA} {
		if f != "" {
			tls++
		}
	}
	seen := map[string]bool{}
	for _, a := range c.Nodes {
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			return fmt.Errorf("cluster.nodes: %q is not a host:port address", a)
		}
		if seen[a] {
			return fmt.Errorf("cluster.nodes: %q is listed twice", a)
		}
		seen[a] = true
	}
	switch {
	case tls != 0 && tls != 3:
		return fmt.Errorf("cluster: mutual TLS needs tls_cert, tls_key and tls_ca together (%d of 3 given)", tls)
	case c.CallTimeout <= 0:
		return fmt.Errorf("cluster.call_timeout must be positive, got %s", c.CallTimeout)
	case len(c.Nodes) > 0 && tls == 0 && c.SecretFile == "" && !c.Insecure:
		return fmt.Errorf("cluster.nodes is set but the cluster has no security: give cluster.secret_file, or cluster.tls_cert, tls_key and tls_ca (cluster.insecure is for loopback tests only)")
	}
	return nil
}

// Params returns the invindex parameters the index is built with.
func (c *Config) Params() invindex.Params {
	return invindex.Params{
		WindowWords:      c.Engine.WindowWords,
		ChunkBits:        c.Engine.ChunkBits,
		StripDiacritics:  c.Engine.StripDiacritics,
		ExtraWindowWords: c.Engine.ExtraWindowWords,
	}
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

// splitList reads a comma-separated environment value.
func splitList(v string) []string {
	var out []string
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// Langs are the related.languages as the analyser's languages (nil: all).
func (c *RelatedConfig) Langs() ([]related.Lang, error) {
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

// validPDFEngine reports whether name is an engine extract.ParsePDFEngine knows.
func validPDFEngine(name string) bool {
	_, err := extract.ParsePDFEngine(name)
	return err == nil
}
