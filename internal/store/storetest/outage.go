package storetest

import (
	"sync"
	"testing"

	"github.com/256dpi/lungo"

	"github.com/streamops/streamops/internal/store"
)

// Outage takes a store's engine away and brings it back, on either
// engine: on MongoDB it cuts the connection (a Proxy), on the embedded
// engine it hangs the engine's disk, so a commit blocks inside the engine
// and every command behind it. Either way, while it lasts each command
// fails with store.ErrUnavailable within Config.OperationTimeout, as with a
// store that is down or out of reach, and what was in flight may still
// land once it ends, as with a server.
type Outage struct {
	proxy *Proxy

	mu   sync.Mutex
	back chan struct{} // closed while the disk answers
}

// ConfigureOutage is Configure with an Outage between the store cfg opens
// and its engine.
func ConfigureOutage(tb testing.TB, cfg store.Config) (store.Config, *Outage) {
	tb.Helper()
	cfg = Configure(tb, cfg)
	o := &Outage{back: make(chan struct{})}
	close(o.back)
	if cfg.URI != "" {
		cfg.URI, o.proxy = ProxyURI(tb, cfg.URI)
		return cfg, o
	}
	cfg.Backing = outageDisk{disk: lungo.NewMemoryStore(), o: o}
	tb.Cleanup(o.End) // let a hung commit finish so the store can close
	return cfg, o
}

// Begin takes the engine away.
func (o *Outage) Begin() {
	if o.proxy != nil {
		o.proxy.Cut()
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	select {
	case <-o.back:
		o.back = make(chan struct{})
	default:
	}
}

// End brings the engine back.
func (o *Outage) End() {
	if o.proxy != nil {
		o.proxy.Restore()
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	select {
	case <-o.back:
	default:
		close(o.back)
	}
}

// outageDisk is the embedded engine's storage; a commit's write waits for
// the end of an outage.
type outageDisk struct {
	disk lungo.Store
	o    *Outage
}

func (d outageDisk) Load() (*lungo.Catalog, error) { return d.disk.Load() }

func (d outageDisk) Store(c *lungo.Catalog) error {
	d.o.mu.Lock()
	back := d.o.back
	d.o.mu.Unlock()
	<-back
	return d.disk.Store(c)
}
