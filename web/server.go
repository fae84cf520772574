package web

import (
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/plagd/plagd/auth"
	"github.com/plagd/plagd/config"
	"github.com/plagd/plagd/engine"
	"github.com/plagd/plagd/extract/sandbox"
	"github.com/plagd/plagd/ingest"
	"github.com/plagd/plagd/store"
)

// Runner is the part of the daemon the pages show and drive: whether a run
// is going on, when the next scheduled one is, and "run now". A server
// without a daemon (tests, a read-only replica) passes nil: the runs page
// then says so and offers no button.
type Runner interface {
	Running() bool
	NextRun() time.Time
	// PromptRun is when the run for recent changes is due (zero: none is
	// waited for).
	PromptRun() time.Time
	RequestRun()
}

// Options are what the web interface is built from.
type Options struct {
	Config config.Config
	// DB is the archive; the server runs its statements through package
	// store (and auth, audit and engine for their own tables), none itself.
	DB *store.DB
	// Engine answers "check this file now" from the index it keeps loaded;
	// the daemon shares its own (Daemon.Engine), so a check sees the newest
	// committed run without loading the index twice.
	Engine *engine.Engine
	// NearDups answers "is this a near-duplicate?" at upload, on report
	// pages and for checks; the daemon may share its own, so that one
	// in-memory simhash index serves the process. nil: New builds one.
	NearDups *engine.NearDups
	Runner   Runner // nil: no daemon in this process
	// Health, when set, makes the server answer 503 while the database is
	// unreachable (unavailable.go); the daemon shares its own (Daemon.Health).
	Health Availability
	Log    zerolog.Logger
}

// Server is plagd's web interface and JSON API: server-rendered pages for
// teachers, archive staff and admins, and /api/v1 for integrations. Every
// route names the least role it needs (routes.go), and one middleware
// enforces it, so no handler can forget the check.
type Server struct {
	cfg    config.Config
	db     *store.DB
	engine *engine.Engine
	// ownEngine: New made the engine (Options.Engine was nil); Close closes it.
	ownEngine bool
	// extract reads uploaded and checked files: the engine's pool, so that
	// `plagd serve` has one for its runs and its pages (extract.workers).
	extract *sandbox.Pool
	// neardups finds documents within neardup.distance bits of a text's
	// simhash, before any run (upload-time hashes) and after.
	neardups *engine.NearDups
	runner   Runner
	health   Availability // nil: no outage handling
	log      zerolog.Logger
	users    *auth.Store
	pages    map[string]*template.Template
	mux      *http.ServeMux
	routes   []Route
	// reports keeps aligned reports of stored documents, so that a teacher
	// toggling a filter does not wait for the alignment again.
	reports *reportCache
	// checks keeps "check a file now" results for a while, for their owner
	// only; nothing of them reaches the database.
	checks *checkCache
	logins *loginThrottle
	// docs is the way a document's new content enters: read once by
	// extract, stored, compared with neardups (package ingest).
	docs *ingest.Documents
	// uploads bounds the uploads read and processed at once.
	uploads *uploadSlots
	now     func() time.Time
}

// New builds the server. It fails only when the embedded templates do not
// parse, a build defect that the tests catch.
func New(opt Options) (*Server, error) {
	pages, err := Templates()
	if err != nil {
		return nil, fmt.Errorf("web templates: %w", err)
	}
	s := &Server{
		cfg: opt.Config, db: opt.DB, engine: opt.Engine, neardups: opt.NearDups, runner: opt.Runner, health: opt.Health, log: opt.Log,
		users: auth.NewStore(opt.DB.Pool), pages: pages, mux: http.NewServeMux(),
		reports: newReportCache(64), checks: newCheckCache(256, time.Hour), logins: newLoginThrottle(opt.Config.Auth),
		uploads: newUploadSlots(opt.Config.HTTP.MaxConcurrentUploads), now: time.Now,
	}
	s.users.LimitHashes(opt.Config.Auth.MaxConcurrentHashes, opt.Config.Auth.HashQueue)
	if s.engine == nil {
		s.engine = engine.NewEngine(opt.Config, opt.DB.Pool, opt.Log)
		s.ownEngine = true
	}
	s.extract = s.engine.Extractor()
	if s.neardups == nil {
		s.neardups = engine.NewNearDups(opt.DB.Pool, opt.Config)
	}
	s.docs = ingest.New(s.extract, opt.Config.ExtractOptions(), s.neardups, opt.Log)
	s.register()
	return s, nil
}

// Close stops what New started itself: the engine it made when
// Options.Engine was nil, with its extraction processes. A shared engine is
// its owner's to close.
func (s *Server) Close() {
	if s.ownEngine {
		s.engine.Close()
	}
}

// Handler serves every route, with the security headers every response
// carries, compressed for clients that accept gzip.
func (s *Server) Handler() http.Handler { return securityHeaders(gzipped(s.unavailable(s.mux))) }

// Routes lists every route with the least role it needs: the tests walk
// it to prove that each one refuses an anonymous or too-weak caller.
func (s *Server) Routes() []Route { return append([]Route(nil), s.routes...) }

// securityHeaders sets the headers that keep the pages from being framed,
// sniffed or made to load scripts from elsewhere. Inline styles are allowed
// for the figures' bar widths; scripts come only from /static/.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "+
			"img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}
