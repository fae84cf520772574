package extract

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/internal/safetext"
)

// Options limit extraction.
type Options struct {
	// MaxBytes rejects larger files with ErrTooLarge; 0 means no limit.
	MaxBytes int64
	// Timeout bounds the extraction of one document (ErrTimeout); 0 means none.
	Timeout time.Duration
	// MaxUnzipped caps the bytes decompressed from a zip-based file (DOCX,
	// ODT) and MaxZipEntries its entries, against zip bombs; 0 means the
	// defaults (DefaultMaxUnzipped, DefaultMaxZipEntries).
	MaxUnzipped   int64
	MaxZipEntries int
	// OCR, when Tesseract is set, recognises the pages of image-only PDFs
	// with the tesseract program; otherwise such files fail as "no text layer".
	OCR OCROptions
	// Limits bound the work of one document (ErrTooComplex); zero fields
	// mean the defaults.
	Limits Limits
	// PDFEngine reads PDFs: PDFium ("" or PDFEnginePDFium, the default) or
	// the Go reader (PDFEngineGo).
	PDFEngine PDFEngine

	// budget is the document's budget while a parser runs (set by
	// runParser; parsers read it with budgetOf).
	budget *budget
	// hidden collects the hidden text a parser leaves out (set by
	// runParser; parsers report through hide).
	hidden *hiddenLog
}

// Result is what extraction finds in a file: its text, as a reader of the
// rendered document sees it, and the flags of what it left out (a
// disguise.HiddenText flag whose spans are empty ranges of Text where
// hidden text stood). Flags is nil for an ordinary file.
type Result struct {
	Text  string
	Flags []disguise.Flag
}

// OCROptions configure OCR of scanned PDFs.
type OCROptions struct {
	Tesseract string   // path of the tesseract binary; "" disables OCR
	Languages []string // tesseract language codes, e.g. ["ces", "eng"]
}

// Defaults for Options' zero values.
const (
	DefaultMaxUnzipped   = 1 << 30
	DefaultMaxZipEntries = 10000
)

// parser extracts raw text from a file already known to be of its format.
// It returns an *Error for anything wrong with the file; its output is
// normalised by Text, so it need not clean line endings or controls.
type parser func(content []byte, opt Options) (string, error)

// parsers holds the formats that can be read. Each format's file registers
// its parser in an init function, so formats are added without touching this one.
var parsers = map[Format]parser{
	FormatText: func(content []byte, _ Options) (string, error) { return decodePlain(content) },
}

// maxReason bounds Error.Reason: reasons may quote a library's error
// message, and the message may quote the file.
const maxReason = 300

// Text is TextContext without a context of its own: only opt.Timeout and
// opt.Limits stop it.
func Text(content []byte, filename, contentType string, opt Options) (string, error) {
	return TextContext(context.Background(), content, filename, contentType, opt)
}

// TextContext is Read without the flags: the text of the file.
func TextContext(ctx context.Context, content []byte, filename, contentType string, opt Options) (string, error) {
	r, err := Read(ctx, content, filename, contentType, opt)
	return r.Text, err
}

// Read extracts the plain text of a file and flags the hidden text it left
// out. filename and contentType
// may be empty; they only help when the bytes are ambiguous. The text is
// UTF-8 with "\n" line endings and no control characters other than "\n"
// and "\t". It never panics: a parser that does is reported as ErrCorrupt;
// one that runs past opt.Timeout, or whose ctx is done, is reported as
// ErrTimeout and stops working within milliseconds; one that reaches
// opt.Limits is reported as ErrTooComplex. Every Reason is one line of
// valid UTF-8 of at most 300 bytes (internal/safetext.Line).
func Read(ctx context.Context, content []byte, filename, contentType string, opt Options) (Result, error) {
	r, err := extractText(ctx, content, filename, contentType, opt)
	if e, ok := err.(*Error); ok {
		e.Reason = safetext.Line(e.Reason, maxReason)
	}
	return r, err
}

func extractText(ctx context.Context, content []byte, filename, contentType string, opt Options) (Result, error) {
	if opt.MaxBytes > 0 && int64(len(content)) > opt.MaxBytes {
		return Result{}, TooLarge(int64(len(content)), opt.MaxBytes)
	}
	if len(content) == 0 {
		return Result{}, &Error{Kind: ErrEmpty, Reason: ErrEmpty.Error()}
	}
	format, what := detect(content, filename, contentType)
	parse, ok := parsers[format]
	switch {
	case ok:
	case format == FormatBinary:
		return Result{}, newError(ErrBinary, "binary data, not text: %s", what)
	default:
		return Result{}, newError(ErrUnsupported, "format %s is not supported yet", format.Name())
	}
	raw, hidden, err := runParser(ctx, parse, format, content, opt)
	if err != nil {
		return Result{}, err
	}
	text, marks := normalize(raw)
	if strings.TrimFunc(text, unicode.IsSpace) == "" {
		return Result{}, &Error{Kind: ErrEmpty, Reason: ErrEmpty.Error()}
	}
	return Result{Text: text, Flags: hidden.flags(marks)}, nil
}

// runParser runs parse with panics turned into ErrCorrupt, within a
// budget (opt.Limits) that watches ctx and, with a timeout, in its own
// goroutine. Go cannot stop a goroutine from outside: when the timeout
// fires, runParser cancels the budget's context and answers at once, and
// the parser, which checks its budget in every loop, stops on its own
// within milliseconds and releases its memory.
//
// The parser's hidden-text log is returned only with the text: a parser
// that timed out may still be writing to it.
func runParser(ctx context.Context, parse parser, format Format, content []byte, opt Options) (string, *hiddenLog, error) {
	type result struct {
		text string
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opt.budget = newBudget(ctx, opt.Limits)
	hidden := &hiddenLog{}
	opt.hidden = hidden
	call := func() (r result) {
		defer func() {
			if p := recover(); p != nil {
				if s, ok := p.(budgetStop); ok {
					r = result{err: s.err}
					return
				}
				r = result{err: newError(ErrCorrupt, "the %s file is damaged and could not be read (%s)", format.Name(), quote(p))}
			}
		}()
		t, err := parse(content, opt)
		if err == nil && len(t) > opt.budget.lim.MaxTextBytes {
			err = tooComplex("it holds more text", fmt.Sprintf("%d bytes", opt.budget.lim.MaxTextBytes), "max_text_bytes")
		}
		return result{t, err}
	}
	if opt.Timeout <= 0 {
		r := call()
		return r.text, hidden, r.err
	}
	done := make(chan result, 1)
	go func() { done <- call() }()
	timer := time.NewTimer(opt.Timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.text, hidden, r.err
	case <-timer.C:
		return "", nil, newError(ErrTimeout, "reading the %s file took longer than %s (extract.timeout in the configuration)",
			format.Name(), opt.Timeout)
	case <-ctx.Done():
		return "", nil, newError(ErrTimeout, "reading the %s file was cancelled (%s)", format.Name(), ctx.Err())
	}
}

// quote makes a library's error or panic value fit for a reason: one line
// of valid UTF-8, bounded. Library messages quote the file's bytes
// ("malformed hex string \x10 % \x1f0/\xa0...").
func quote(v any) string {
	return safetext.Line(fmt.Sprint(v), 200)
}

// TooLarge is the ErrTooLarge error for a file of size bytes over limit.
// Ingest uses it too, so that a file refused before it is read and one
// refused by a node read the same.
func TooLarge(size, limit int64) *Error {
	return newError(ErrTooLarge, "the file is %s, more than the limit of %s (extract.max_bytes in the configuration)",
		humanBytes(size), humanBytes(limit))
}

func humanBytes(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// normalize makes line endings "\n" and removes characters that carry no
// text: C0 and C1 controls other than "\n" and "\t", DEL and zero-width
// no-break spaces (stray BOMs of concatenated files). Form feed, vertical
// tab and the Unicode line/paragraph separators become "\n" rather than
// vanishing, so the words on either side stay apart. It also removes the
// marks parsers write where they left hidden text out (hiddenMark) and
// returns their byte offsets in the result, in order.
func normalize(s string) (string, []int) {
	// Most text needs nothing: runs of it are copied whole between the
	// characters that change, and a text without any is returned as it is
	// (a full run normalises every text of the archive; rune by rune this
	// was 6.2 of the 10 s of CPU its chunking spent reading 100,000
	// texts). normalizeRunes in the tests is the rune-by-rune definition
	// it must equal.
	var b strings.Builder
	var marks []int
	copied := false
	kept := 0 // s[kept:i] is unchanged and not yet written
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		repl, mark := "", false
		switch {
		case r == hiddenMark:
			mark = true
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				repl = "\n"
			}
		case r == '\f', r == '\v', r == '\u2028', r == '\u2029', r == '\u0085':
			repl = "\n"
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == '\ufeff':
			// dropped
		case r == utf8.RuneError && size == 1:
			repl = string(utf8.RuneError) // an invalid byte, as ranging over s reads it
		default:
			i += size
			continue
		}
		if !copied {
			b.Grow(len(s))
			copied = true
		}
		b.WriteString(s[kept:i])
		if mark {
			marks = append(marks, b.Len())
		}
		b.WriteString(repl)
		i += size
		kept = i
	}
	if !copied {
		return s, nil
	}
	b.WriteString(s[kept:])
	return b.String(), marks
}
