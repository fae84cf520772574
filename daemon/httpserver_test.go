package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/plagd/plagd/config"
)

// TestConfig_HTTPAndAuthLimits: the request and sign-in limits of issue 14
// come from the environment, reach the http.Server, and are validated.
func TestConfig_HTTPAndAuthLimits(t *testing.T) {
	cfg := config.Default()
	env := map[string]string{
		"PLAGD_HTTP_READ_HEADER_TIMEOUT":    "3s",
		"PLAGD_HTTP_READ_TIMEOUT":           "20s",
		"PLAGD_HTTP_IDLE_TIMEOUT":           "30s",
		"PLAGD_HTTP_MAX_HEADER_BYTES":       "8192",
		"PLAGD_HTTP_MAX_CONCURRENT_UPLOADS": "2",
		"PLAGD_AUTH_LOGIN_ATTEMPTS":         "3",
		"PLAGD_AUTH_MAX_CONCURRENT_HASHES":  "1",
	}
	if err := cfg.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(cfg.HTTP, nil)
	if srv.ReadHeaderTimeout != 3*time.Second || srv.ReadTimeout != 20*time.Second || srv.IdleTimeout != 30*time.Second ||
		srv.WriteTimeout != 10*time.Minute || srv.MaxHeaderBytes != 8192 {
		t.Fatalf("server limits: %+v", srv)
	}
	if cfg.HTTP.MaxConcurrentUploads != 2 || cfg.Auth.LoginAttempts != 3 || cfg.Auth.MaxConcurrentHashes != 1 {
		t.Fatalf("overrides not applied: %+v %+v", cfg.HTTP, cfg.Auth)
	}
	cfg.HTTP.WriteTimeout = cfg.Extract.Timeout
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "http.write_timeout") {
		t.Fatalf("a write timeout that cuts off extraction: %v", err)
	}
	cfg = config.Default()
	cfg.HTTP.ReadTimeout = 0
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "read_timeout") {
		t.Fatalf("no read timeout: %v", err)
	}
}
