package faultproxy

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

const (
	chunkSize  = 32 << 10 // largest chunk one Read forwards
	queueLen   = 16       // chunks held per direction before the reader stops
	dialTimout = 10 * time.Second
)

// Proxy forwards TCP connections accepted on a loopback port to a target
// address. Its methods are safe for concurrent use.
type Proxy struct {
	target string
	l      net.Listener
	ctx    context.Context // cancelled by Close: aborts dials in progress
	cancel context.CancelFunc
	wg     sync.WaitGroup // the accept loop and every link goroutine

	mu     sync.Mutex
	delay  time.Duration
	drop   bool
	resume chan struct{} // closed when dropping stops; replaced when it starts
	links  map[*link]struct{}
	closed bool
}

// New listens on 127.0.0.1:0 and forwards every accepted connection to target
// (host:port), dialled when the connection is accepted.
func New(target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{target: target, l: l, ctx: ctx, cancel: cancel,
		resume: make(chan struct{}), links: make(map[*link]struct{})}
	close(p.resume) // not dropping
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's listening address (host:port), to dial instead of the
// target.
func (p *Proxy) Addr() string { return p.l.Addr().String() }

// Target is the address the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// SetDelay makes every chunk of bytes forwarded from now on, in either
// direction, reach the other side no earlier than d after the proxy read it
// (so a round trip through the proxy takes at least 2d). 0 removes the delay.
func (p *Proxy) SetDelay(d time.Duration) {
	if d < 0 {
		d = 0
	}
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// SetDrop(true) stops forwarding bytes in both directions of every current
// and future connection, without closing any: a black hole. SetDrop(false)
// resumes forwarding, first the bytes held meanwhile.
func (p *Proxy) SetDrop(drop bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if drop == p.drop {
		return
	}
	p.drop = drop
	if drop {
		p.resume = make(chan struct{})
	} else {
		close(p.resume)
	}
}

// Reset closes every current connection, both its side towards the client
// and towards the target. The proxy goes on accepting new ones.
func (p *Proxy) Reset() {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for k := range p.links {
		links = append(links, k)
	}
	p.mu.Unlock()
	for _, k := range links {
		k.close()
	}
}

// Conns is the number of connections currently forwarded.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.links)
}

// Close stops the listener, closes every connection and waits for all of
// the proxy's goroutines to end. It is idempotent.
func (p *Proxy) Close() error {
	p.mu.Lock()
	already := p.closed
	p.closed = true
	p.mu.Unlock()
	var err error
	if !already {
		err = p.l.Close()
		p.cancel()
	}
	p.Reset()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return // listener closed
		}
		p.wg.Add(1)
		go p.connect(c)
	}
}

// connect dials the target for the accepted connection c and starts
// forwarding. A target that cannot be reached closes c.
func (p *Proxy) connect(c net.Conn) {
	defer p.wg.Done()
	ctx, cancel := context.WithTimeout(p.ctx, dialTimout)
	var d net.Dialer
	t, err := d.DialContext(ctx, "tcp", p.target)
	cancel()
	if err != nil {
		c.Close()
		return
	}
	k := &link{p: p, a: c, b: t, done: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.Close()
		t.Close()
		return
	}
	p.links[k] = struct{}{}
	k.live = 2
	p.wg.Add(4)
	p.mu.Unlock()
	ab, ba := make(chan chunk, queueLen), make(chan chunk, queueLen)
	go k.read(c, ab)
	go k.write(t, ab)
	go k.read(t, ba)
	go k.write(c, ba)
}

// chunk is what one Read returned, and when.
type chunk struct {
	data []byte
	at   time.Time
}

// link is one proxied connection: a (client side) and b (target side).
type link struct {
	p    *Proxy
	a, b net.Conn
	done chan struct{} // closed by close
	once sync.Once
	live int // directions not yet finished; guarded by p.mu
}

// close closes both connections and removes the link from the proxy.
func (k *link) close() {
	k.once.Do(func() {
		close(k.done)
		k.a.Close()
		k.b.Close()
		k.p.mu.Lock()
		delete(k.p.links, k)
		k.p.mu.Unlock()
	})
}

// read forwards chunks of src to q until src ends. On EOF it closes q, so
// that the writer half-closes its side after the queued chunks; on any other
// error it closes the link.
func (k *link) read(src net.Conn, q chan<- chunk) {
	defer k.p.wg.Done()
	defer close(q)
	buf := make([]byte, chunkSize)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			c := chunk{data: append([]byte(nil), buf[:n]...), at: time.Now()}
			select {
			case q <- c:
			case <-k.done:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				k.close()
			}
			return
		}
	}
}

// write forwards the chunks of q to dst when they are due and the proxy is
// not dropping. When q ends it half-closes dst (or closes the link when both
// directions have ended).
func (k *link) write(dst net.Conn, q <-chan chunk) {
	defer k.p.wg.Done()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for c := range q {
		k.p.mu.Lock()
		delay := k.p.delay
		k.p.mu.Unlock()
		if wait := time.Until(c.at.Add(delay)); wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-k.done:
				return
			}
		}
		for {
			k.p.mu.Lock()
			drop, resume := k.p.drop, k.p.resume
			k.p.mu.Unlock()
			if !drop {
				break
			}
			select {
			case <-resume:
			case <-k.done:
				return
			}
		}
		if _, err := dst.Write(c.data); err != nil {
			k.close()
			return
		}
	}
	// the source ended cleanly: pass the end on
	k.p.mu.Lock()
	k.live--
	last := k.live == 0
	k.p.mu.Unlock()
	if last {
		k.close()
		return
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		if cw.CloseWrite() == nil {
			return
		}
	}
	k.close()
}
