package sandbox

import "sync"

// stderrBuf keeps the head and the tail of a child's standard error: the
// head has a Go crash's first line ("fatal error: runtime: out of
// memory", "panic: ..."), the tail the last words of a long trace; the
// middle, however long, is dropped. Its memory is bounded whatever the
// child writes.
type stderrBuf struct {
	mu      sync.Mutex
	max     int
	head    []byte
	tail    []byte // ring of the last max bytes once head is full
	pos     int    // next write position in tail when full
	full    bool   // tail has wrapped
	dropped int64
}

func newStderrBuf(max int) *stderrBuf { return &stderrBuf{max: max} }

func (b *stderrBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := b.max - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if !b.full && len(b.tail) < b.max {
			k := min(b.max-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		b.full = true
		k := copy(b.tail[b.pos:], p)
		b.dropped += int64(k)
		b.pos = (b.pos + k) % b.max
		p = p[k:]
	}
	return n, nil
}

// String is the head, then, if anything was dropped, a marker, then the tail.
func (b *stderrBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(b.head)
	if !b.full {
		return s + string(b.tail)
	}
	return s + "\n[…]\n" + string(b.tail[b.pos:]) + string(b.tail[:b.pos])
}

// reset empties the buffer (between documents, so that a crash report
// shows what the child wrote while reading the document that killed it).
func (b *stderrBuf) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.head, b.tail, b.pos, b.full, b.dropped = b.head[:0], b.tail[:0], 0, false, 0
}
