package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

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
