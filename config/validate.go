package config

import (
	"fmt"
	"net"
	"time"

	"github.com/plagd/plagd/extract"
)

// Validate reports the first invalid field in words an operator can act on.
// Each section checks its own fields; the few rules that join two sections
// (a check of a slow file must fit in one HTTP answer) are checked here.
func (c *Config) Validate() error {
	for _, v := range []interface{ Validate() error }{
		&c.Engine, &c.Extract, &c.HTTP, &c.Auth, &c.NearDup, &c.Related, &c.Routing, &c.Cluster, &c.Report,
	} {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	if c.HTTP.WriteTimeout <= c.Extract.Timeout {
		return fmt.Errorf("http.write_timeout (%s) must exceed extract.timeout (%s), or a check of a slow file is cut off", c.HTTP.WriteTimeout, c.Extract.Timeout)
	}
	return nil
}

// Validate checks the engine section, the chunking parameters included.
func (e *Engine) Validate() error {
	if err := e.Params().Validate(); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	switch {
	case e.MinShared < 0:
		return fmt.Errorf("engine.min_shared must be 0 (auto) or positive, got %d", e.MinShared)
	case e.TopK < 1:
		return fmt.Errorf("engine.top_k must be at least 1, got %d", e.TopK)
	case e.ExtraWindowWords < -1:
		return fmt.Errorf("engine.extra_window_words must be -1 (off), 0 (auto) or 1..64, got %d", e.ExtraWindowWords)
	case e.DFCap < -1:
		return fmt.Errorf("engine.df_cap must be -1 (off), 0 (auto) or positive, got %d", e.DFCap)
	case e.Nodes < 0 || e.Nodes > 256:
		return fmt.Errorf("engine.nodes must be 0 (number of CPUs) to 256, got %d", e.Nodes)
	case e.BatchSize < 1:
		return fmt.Errorf("engine.batch_size must be at least 1, got %d", e.BatchSize)
	}
	return nil
}

// Validate checks the extract section.
func (x *Extract) Validate() error {
	switch {
	case x.MaxBytes < 1:
		return fmt.Errorf("extract.max_bytes must be positive")
	case x.Workers < 0 || x.Workers > 1024:
		return fmt.Errorf("extract.workers must be 0 (number of CPUs) to 1024, got %d", x.Workers)
	case x.MemoryLimit < 64<<20:
		return fmt.Errorf("extract.memory_limit must be at least 67108864 (64 MiB), got %d", x.MemoryLimit)
	case x.Recycle < 1:
		return fmt.Errorf("extract.recycle must be at least 1 document, got %d", x.Recycle)
	}
	if _, err := extract.ParsePDFEngine(x.PDFEngine); err != nil {
		return fmt.Errorf("extract.pdf_engine: %w", err)
	}
	return nil
}

// Validate checks the http section.
func (h *HTTP) Validate() error {
	switch {
	case h.SessionTTL < time.Minute:
		return fmt.Errorf("http.session_ttl must be at least 1m, got %s", h.SessionTTL)
	case h.CookieSecure != "auto" && h.CookieSecure != "always" && h.CookieSecure != "never":
		return fmt.Errorf("http.cookie_secure must be auto, always or never, got %q", h.CookieSecure)
	case h.MaxRequestBytes < 1<<10:
		return fmt.Errorf("http.max_request_bytes must be at least 1024, got %d", h.MaxRequestBytes)
	case h.MaxFormBytes < 1<<10:
		return fmt.Errorf("http.max_form_bytes must be at least 1024, got %d", h.MaxFormBytes)
	case h.ReadHeaderTimeout <= 0 || h.ReadTimeout <= 0 || h.UploadTimeout <= 0 ||
		h.WriteTimeout <= 0 || h.IdleTimeout <= 0:
		return fmt.Errorf("http.read_header_timeout, read_timeout, upload_timeout, write_timeout and idle_timeout must be positive durations such as 30s")
	case h.MaxHeaderBytes < 4<<10:
		return fmt.Errorf("http.max_header_bytes must be at least 4096, got %d", h.MaxHeaderBytes)
	case h.MaxConcurrentUploads < 1:
		return fmt.Errorf("http.max_concurrent_uploads must be at least 1, got %d", h.MaxConcurrentUploads)
	}
	return nil
}

// Validate checks the auth section.
func (a *Auth) Validate() error {
	switch {
	case a.LoginAttempts < 1 || a.LoginAttemptsPerAddress < 1 || a.LoginAttemptsPerName < 1:
		return fmt.Errorf("auth.login_attempts, login_attempts_per_address and login_attempts_per_name must be at least 1")
	case a.LoginMaxBackoff < time.Second:
		return fmt.Errorf("auth.login_max_backoff must be at least 1s, got %s", a.LoginMaxBackoff)
	case a.ThrottleEntries < 100:
		return fmt.Errorf("auth.throttle_entries must be at least 100, got %d", a.ThrottleEntries)
	case a.MaxConcurrentHashes < 0 || a.HashQueue < 0:
		return fmt.Errorf("auth.max_concurrent_hashes (0: auto) and auth.hash_queue must not be negative")
	}
	return nil
}

// Validate checks the neardup section.
func (n *NearDup) Validate() error {
	switch {
	case n.Distance < 0 || n.Distance > 10:
		return fmt.Errorf("neardup.distance must be 0 to 10 bits, got %d (3 finds re-uploads and light edits)", n.Distance)
	case n.Budget < 0:
		return fmt.Errorf("neardup.budget must be 0 (exact) or positive, got %d", n.Budget)
	case n.SampleDocs < 100:
		return fmt.Errorf("neardup.sample_docs must be at least 100, got %d", n.SampleDocs)
	}
	return nil
}

// Validate checks the report section.
func (r *Report) Validate() error {
	if r.SentenceDice < 0 || r.SentenceDice > 1 {
		return fmt.Errorf("report.sentence_dice must be 0 (off) to 1, got %g (0.4 finds reworded copies at the precision of verbatim ones)", r.SentenceDice)
	}
	return nil
}

// Validate checks the related section, its languages included.
func (r *Related) Validate() error {
	switch {
	case r.K < 1 || r.K > 100:
		return fmt.Errorf("related.k must be 1 to 100, got %d", r.K)
	case r.Margin < 0 || r.Margin > 1000:
		return fmt.Errorf("related.margin must be 0 to 1000, got %d", r.Margin)
	case r.MaxTerms < 0 || r.MaxTerms > 1000000:
		return fmt.Errorf("related.max_terms must be 0 (every term) to 1000000, got %d", r.MaxTerms)
	case r.Method != "zolip" && r.Method != "exact":
		return fmt.Errorf("related.method must be exact or zolip, got %q", r.Method)
	case r.Lambda < 1 || r.Lambda > 63:
		return fmt.Errorf("related.lambda must be 1 to 63 bits, got %d", r.Lambda)
	case r.Sigma <= 0 || r.Sigma > 1:
		return fmt.Errorf("related.sigma must be in (0, 1], got %g", r.Sigma)
	}
	_, err := r.Langs()
	return err
}

// Validate checks the routing section.
func (r *Routing) Validate() error {
	switch {
	case r.Partitions < 1 || r.Partitions > 4096:
		return fmt.Errorf("routing.partitions must be 1 to 4096, got %d", r.Partitions)
	case r.M < 1 || r.M > 64:
		return fmt.Errorf("routing.m must be 1 to 64, got %d", r.M)
	case r.Candidates < 1:
		return fmt.Errorf("routing.candidates must be at least 1, got %d", r.Candidates)
	}
	return nil
}

// Validate checks the cluster section.
func (c *Cluster) Validate() error {
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
