package sandbox

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"io"

	"github.com/plagd/plagd/disguise"
	"github.com/plagd/plagd/extract"
)

// The protocol between a pool and a child: each message is a 4-byte
// big-endian length followed by that many bytes of one gob value (encoded
// with a fresh encoder, so that every frame stands alone). The parent sends
// a request, the child answers it with a response carrying the same Seq;
// then the next request. Nothing else travels on the pipes.

// request asks a child to run one handler on one document.
type request struct {
	Seq         uint64
	Op          string // a registered handler: "extract" for Pool.Text
	Content     []byte
	Filename    string
	ContentType string
	Options     extract.Options
	// CPUSeconds is the CPU time the child may spend on this request
	// before the kernel stops it (RLIMIT_CPU); 0: no limit.
	CPUSeconds int64
}

// response is a child's answer: the text and its flags, or the failure's
// kind and reason. The parent bounds the flags (boundFlags): a child that
// read a hostile file is not trusted to have done so.
type response struct {
	Seq    uint64
	Text   string
	Flags  []disguise.Flag
	Kind   extract.Kind // 0: success
	Reason string
}

// maxRequestFrame bounds a request frame the child accepts (the length
// field's own limit); the parent bounds answers by the child's memory limit
// (a text larger than the memory the child may use cannot have been
// produced honestly).
const maxRequestFrame = 1<<32 - 1

// writeFrame sends v as one frame.
func writeFrame(w io.Writer, v any) error {
	var buf bytes.Buffer
	buf.Write([]byte{0, 0, 0, 0})
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	b := buf.Bytes()
	n := len(b) - 4
	if uint64(n) > 1<<32-1 {
		return fmt.Errorf("message of %d bytes is too large for a frame", n)
	}
	binary.BigEndian.PutUint32(b, uint32(n))
	_, err := w.Write(b)
	return err
}

// readFrame reads one frame into v, refusing frames over max bytes. The
// buffer grows as bytes arrive, so a lying length costs nothing until the
// bytes are really sent.
func readFrame(r io.Reader, v any, max int64) error {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	n := int64(binary.BigEndian.Uint32(hdr[:]))
	if n > max {
		return protocolError{fmt.Errorf("a frame of %d bytes, more than the %d allowed", n, max)}
	}
	var buf bytes.Buffer
	if got, err := io.CopyN(&buf, r, n); err != nil {
		return fmt.Errorf("frame cut after %d of %d bytes: %w", got, n, err)
	}
	if err := gob.NewDecoder(&buf).Decode(v); err != nil {
		return protocolError{fmt.Errorf("not a message: %w", err)}
	}
	return nil
}

// protocolError: the bytes that came are not a frame of this protocol (as
// opposed to the pipe ending, when the other side died).
type protocolError struct{ error }

func (e protocolError) Unwrap() error { return e.error }
