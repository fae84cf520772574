package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"testing"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/plagd/plagd/config"
)

// TestExecute_ExitCodes: success 0, a failure 1, and 2 for every kind of
// usage error: unknown command, bad flag, bad arguments, a UsageError
// returned (also wrapped) by a command.
func TestExecute_ExitCodes(t *testing.T) {
	root := func() *cobra.Command {
		g := &Globals{}
		r := NewRoot("tool", "a test tool", g)
		r.AddCommand(&cobra.Command{Use: "ok", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }})
		r.AddCommand(&cobra.Command{Use: "fail", RunE: func(*cobra.Command, []string) error { return errors.New("broken") }})
		r.AddCommand(&cobra.Command{Use: "bad", RunE: func(*cobra.Command, []string) error {
			return fmt.Errorf("checking: %w", UsageError{Msg: "--x must be positive"})
		}})
		return r
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"ok"}, ExitOK},
		{[]string{"fail"}, ExitFailure},
		{[]string{"bad"}, ExitUsage},
		{[]string{"ok", "extra"}, ExitUsage},
		{[]string{"ok", "--no-such-flag"}, ExitUsage},
		{[]string{"no-such-command"}, ExitUsage},
	} {
		r := root()
		r.SetArgs(c.args)
		if got := Execute(r); got != c.want {
			t.Errorf("tool %v: exit %d, want %d", c.args, got, c.want)
		}
	}
}

// TestConfig_FlagsOverride: the global flags override the file and the
// environment, and a configuration without a database is refused.
func TestConfig_FlagsOverride(t *testing.T) {
	t.Setenv("PLAGD_DATABASE_URL", "")
	t.Setenv("DATABASE_URL", "")
	t.Setenv("PLAGD_DATA_DIR", "/from/env")
	g := &Globals{}
	if _, err := g.Config(); err == nil {
		t.Fatal("no database anywhere: Config succeeded")
	}
	g = &Globals{Database: "postgres://flag/db", DataDir: "/from/flag", LogLevel: "debug", LogFormat: "json"}
	cfg, err := g.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DatabaseURL != g.Database || cfg.DataDir != g.DataDir || cfg.Log.Level != "debug" || cfg.Log.Format != "json" {
		t.Fatalf("flags not applied: database %q, data dir %q, log %+v", cfg.DatabaseURL, cfg.DataDir, cfg.Log)
	}
}

// TestResultLogger: commands whose output is their result log warnings
// only, unless debug is asked for.
func TestResultLogger(t *testing.T) {
	for level, want := range map[string]zerolog.Level{"info": zerolog.WarnLevel, "debug": zerolog.DebugLevel, "error": zerolog.ErrorLevel} {
		cfg := config.Default()
		cfg.Log.Level = level
		if got := ResultLogger(cfg).GetLevel(); got != want {
			t.Errorf("log.level %s: ResultLogger at %s, want %s", level, got, want)
		}
	}
}

// TestTuneGC: without GOGC the collector runs at DefaultGCPercent; a GOGC
// in the environment is left alone.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	tuneGC()
	if got := debug.SetGCPercent(100); got != DefaultGCPercent {
		t.Errorf("GOGC unset: collector at %d %%, want %d", got, DefaultGCPercent)
	}
	t.Setenv("GOGC", "100")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=100: collector at %d %%, want it left at 100", got)
	}
}
