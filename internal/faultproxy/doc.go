// Package faultproxy is a TCP proxy for fault-injection tests: it forwards
// connections to a target and can, at run time, delay the bytes it forwards,
// stop forwarding them while keeping the connections open (a network
// partition, a peer that vanished without closing its sockets), and close the
// connections it carries. It is for tests on loopback only.
//
//	p, err := faultproxy.New(nodeAddr)
//	defer p.Close()
//	dial(p.Addr())          // instead of nodeAddr
//	p.SetDelay(50 * time.Millisecond)
//	p.SetDrop(true)         // black hole: nothing gets through, nothing is closed
//	p.SetDrop(false)        // the link heals
//	p.Reset()               // every current connection is closed
//
// Each direction of a connection is a reader and a writer goroutine joined by
// a bounded queue of chunks (what one Read returned). The reader stamps every
// chunk with the time it was read; the writer forwards it no earlier than that
// time plus the delay then in force, so a delay is latency, not a throughput
// cap. While dropping, writers forward nothing; readers keep reading until the
// queue is full and then stop, so the peers see a link that accepts a little
// data and then stalls, as TCP over a partition does. Bytes held while
// dropping are forwarded, in order, once dropping stops: like TCP after a
// partition heals, the streams stay intact (a proxy that discarded bytes would
// corrupt the protocol instead of partitioning it).
package faultproxy
