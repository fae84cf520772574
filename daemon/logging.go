package daemon

import (
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/plagd/plagd/config"
	"github.com/rs/zerolog"
)

// NewLogger builds the logger cfg asks for, writing to w.
//
// Format "json" (the default: what log collectors parse) writes one JSON
// object per line; "console" writes human-readable lines; "auto" picks console
// when w is a terminal, so a person running plagd by hand gets readable output
// and the same command under systemd or Docker gets JSON. Level is debug,
// info (the default), warn or error. A bad level or format is not fatal (a
// daemon should not refuse to start over its log settings): the default is
// used and the first log line says so.
func NewLogger(cfg config.Log, w io.Writer) zerolog.Logger {
	var warnings []string

	level, err := zerolog.ParseLevel(strings.ToLower(strings.TrimSpace(cfg.Level)))
	switch {
	case strings.EqualFold(cfg.Level, "warning"):
		level = zerolog.WarnLevel
	case err != nil || level == zerolog.NoLevel:
		if strings.TrimSpace(cfg.Level) != "" {
			warnings = append(warnings, "unknown log level "+strconv.Quote(cfg.Level)+", using info (choose debug, info, warn or error)")
		}
		level = zerolog.InfoLevel
	}

	console := false
	switch strings.ToLower(strings.TrimSpace(cfg.Format)) {
	case "", "json":
	case "console":
		console = true
	case "auto":
		console = isTerminal(w)
	default:
		warnings = append(warnings, "unknown log format "+strconv.Quote(cfg.Format)+", using json (choose json, console or auto)")
	}

	out := w
	if console {
		out = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05.000", NoColor: !isTerminal(w)}
	}
	// The timestamp hook writes milliseconds in UTC without touching zerolog's
	// global TimeFieldFormat (whole seconds), which other code may rely on.
	log := zerolog.New(out).Level(level).Hook(timestampHook{})
	for _, msg := range warnings {
		log.Warn().Msg(msg)
	}
	return log
}

// timestampHook adds the event time with millisecond precision, so that the
// lines of one second still sort in the order they were written.
type timestampHook struct{}

func (timestampHook) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	e.Str(zerolog.TimestampFieldName, time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
}

// isTerminal reports whether w is a terminal (or a Cygwin/MSYS pty).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}
