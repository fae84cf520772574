package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The documented example file is the defaults, field for field: a field
// added to Config but not to configs/plagd.yaml (or vice versa) fails here.
func TestConfig_ExampleFileIsDefaults(t *testing.T) {
	t.Setenv("PLAGD_DATABASE_URL", "")
	t.Setenv("DATABASE_URL", "")
	cfg, err := Load(filepath.Join("..", "configs", "plagd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := Default(); !reflect.DeepEqual(cfg, want) {
		t.Fatalf("configs/plagd.yaml differs from Default():\n got %+v\nwant %+v", cfg, want)
	}
}

func TestConfig_EnvOverridesAndErrors(t *testing.T) {
	env := map[string]string{
		"PLAGD_DATABASE_URL":          "postgres://a",
		"DATABASE_URL":                "postgres://b",
		"PLAGD_ENGINE_MIN_SHARED":     "3",
		"PLAGD_SCHEDULE_DEBOUNCE":     "2s",
		"PLAGD_EXTRACT_OCR_LANGUAGES": "deu,eng",
		"PLAGD_EXTRACT_ISOLATE":       "false",
		"PLAGD_EXTRACT_WORKERS":       "3",
		"PLAGD_EXTRACT_MEMORY_LIMIT":  "536870912",
		"PLAGD_EXTRACT_RECYCLE":       "50",
	}
	cfg := Default()
	if err := cfg.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if cfg.DatabaseURL != "postgres://a" || cfg.Engine.MinShared != 3 || cfg.Schedule.Debounce != 2*time.Second ||
		!reflect.DeepEqual(cfg.Extract.OCR.Languages, []string{"deu", "eng"}) {
		t.Fatalf("env not applied: %+v", cfg)
	}
	if sc := cfg.SandboxConfig(); sc.Isolate || sc.Workers != 3 || sc.MemoryLimit != 512<<20 || sc.Recycle != 50 {
		t.Fatalf("extract sandbox env not applied: %+v", sc)
	}
	env["PLAGD_ENGINE_TOP_K"] = "many"
	if err := cfg.ApplyEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "PLAGD_ENGINE_TOP_K") {
		t.Fatalf("bad number: %v", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("engine:\n  min_shard: 2\n"), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "min_shard") {
		t.Fatalf("unknown key: %v", err)
	}
	os.WriteFile(bad, []byte("engine:\n  chunk_bits: 40\n"), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "chunk_bits") {
		t.Fatalf("out of range: %v", err)
	}
	os.WriteFile(bad, []byte("report:\n  sentence_dice: 1.5\n"), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "report.sentence_dice") {
		t.Fatalf("sentence_dice out of range: %v", err)
	}
	// Sentence seeds off by environment.
	cfg = Default()
	if err := cfg.ApplyEnv(func(k string) string { return map[string]string{"PLAGD_REPORT_SENTENCE_DICE": "0"}[k] }); err != nil ||
		cfg.Report.SentenceDice != 0 {
		t.Fatalf("PLAGD_REPORT_SENTENCE_DICE=0: %v, %g", err, cfg.Report.SentenceDice)
	}
}

func TestAutoMinShared(t *testing.T) {
	for _, c := range []struct{ docs, want int }{{0, 1}, {9_999, 1}, {10_000, 2}, {99_999, 2}, {100_000, 3}, {1_000_000, 4}} {
		if got := AutoMinShared(c.docs); got != c.want {
			t.Errorf("AutoMinShared(%d) = %d, want %d", c.docs, got, c.want)
		}
	}
}

func TestExtraWindowWordsFor(t *testing.T) {
	e := Default().Engine
	for _, c := range []struct{ set, window, docs, want int }{
		{0, 5, 0, 3}, {0, 5, 1_999, 3}, {0, 5, 2_000, 0}, {0, 5, 1_000_000, 0}, // auto
		{0, 3, 10, 0}, {0, 2, 10, 0}, // auto: windows that are short already get none
		{-1, 5, 10, 0}, {4, 5, 10, 4}, {4, 5, 1_000_000, 4}, // off, set
	} {
		e.ExtraWindowWords, e.WindowWords = c.set, c.window
		if got := e.ExtraWindowWordsFor(c.docs); got != c.want {
			t.Errorf("extra_window_words %d, window_words %d, %d documents: %d, want %d", c.set, c.window, c.docs, got, c.want)
		}
		if p := e.ParamsFor(c.docs); p.ExtraWindowWords != c.want || p.Validate() != nil {
			t.Errorf("ParamsFor(%d) = %+v (%v)", c.docs, p, p.Validate())
		}
		if p := e.Params(); p.ExtraWindowWords != max(c.set, 0) {
			t.Errorf("Params() with extra_window_words %d: %+v", c.set, p)
		}
	}
	e = Default().Engine
	for _, bad := range []int{-2, 65, 5} {
		e.ExtraWindowWords = bad
		if err := e.Validate(); err == nil {
			t.Errorf("extra_window_words %d accepted", bad)
		}
	}
}

func TestConfig_Cluster(t *testing.T) {
	env := map[string]string{"PLAGD_CLUSTER_NODES": "10.0.0.1:7070, 10.0.0.2:7070", "PLAGD_CLUSTER_CALL_TIMEOUT": "30s"}
	cfg := Default()
	if err := cfg.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Cluster.Nodes, []string{"10.0.0.1:7070", "10.0.0.2:7070"}) || cfg.Cluster.CallTimeout != 30*time.Second {
		t.Fatalf("env not applied: %+v", cfg.Cluster)
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "no security") {
		t.Fatalf("nodes without secret or TLS: %v", err)
	}
	cfg.Cluster.SecretFile = "/run/secrets/plagd"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg.Cluster.TLSCert = "node.pem"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "tls_cert, tls_key and tls_ca") {
		t.Fatalf("partial TLS: %v", err)
	}
	cfg.Cluster.TLSCert, cfg.Cluster.SecretFile, cfg.Cluster.Insecure = "", "", true
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg.Cluster.Nodes = []string{"no-port"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Fatalf("bad address: %v", err)
	}
}

// Every field of the configuration has its environment override, and the
// override reaches the field: a field of a type ApplyEnv cannot read fails.
func TestConfig_EveryFieldHasAnEnvOverride(t *testing.T) {
	def := Default()
	eachField(reflect.ValueOf(&def).Elem(), "PLAGD", func(name string, f reflect.Value) {
		var v string
		switch {
		case f.Type() == durationType:
			v = "1234s"
		case f.Kind() == reflect.String:
			v = "other"
		case f.Kind() == reflect.Bool:
			v = strconv.FormatBool(!f.Bool())
		case f.Kind() == reflect.Slice:
			v = "a, b"
		default:
			v = "7"
		}
		cfg := Default()
		if err := cfg.ApplyEnv(func(k string) string {
			if k == name {
				return v
			}
			return ""
		}); err != nil {
			t.Errorf("%s=%s: %v", name, v, err)
			return
		}
		if reflect.DeepEqual(cfg, Default()) {
			t.Errorf("%s=%s changed nothing", name, v)
		}
	})
	if n := len(EnvNames()); n < 70 {
		t.Errorf("only %d environment names", n)
	}
}
