package storetest

import (
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Proxy forwards TCP connections to a MongoDB server, so a test can take
// the server away from a store that talks to it (the Network feature):
// Cut closes every connection and refuses new ones, as a lost network
// does; Stall holds every byte while the connections stay open, as a
// paused server does; Restore undoes either.
type Proxy struct {
	// Addr is the proxy's host:port.
	Addr   string
	target string

	mu      sync.Mutex
	resumed *sync.Cond // signalled when a stall ends
	down    bool
	stalled bool
	conns   []net.Conn
	pipes   sync.WaitGroup
}

// NewProxy starts a proxy to target (host:port), which stops when the
// test ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	p := &Proxy{Addr: ln.Addr().String(), target: target}
	p.resumed = sync.NewCond(&p.mu)
	p.pipes.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.pipes.Go(func() { p.serve(c) })
		}
	})
	tb.Cleanup(func() {
		ln.Close()
		p.Cut()
		p.Restore() // let stalled pipes see their connections closed
		p.pipes.Wait()
	})
	return p
}

// ProxyURI starts a proxy (NewProxy) to the host of the MongoDB
// connection string uri and returns uri pointed at the proxy instead.
func ProxyURI(tb testing.TB, uri string) (string, *Proxy) {
	tb.Helper()
	u, err := url.Parse(uri)
	require.NoError(tb, err)
	p := NewProxy(tb, u.Host)
	u.Host = p.Addr
	return u.String(), p
}

func (p *Proxy) serve(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil || p.down {
		c.Close()
		if up != nil {
			up.Close()
		}
		return
	}
	p.conns = append(p.conns, c, up)
	p.pipes.Go(func() { p.pipe(up, c) })
	p.pipes.Go(func() { p.pipe(c, up) })
}

// pipe copies src to dst, holding each read while the proxy is stalled.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		for p.stalled {
			p.resumed.Wait()
		}
		p.mu.Unlock()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// Cut closes every proxied connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Stall holds every byte, both ways, until Restore; connections stay open
// and new ones are accepted.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = true
}

// Restore accepts connections and passes bytes again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down, p.stalled = false, false
	p.resumed.Broadcast()
}
