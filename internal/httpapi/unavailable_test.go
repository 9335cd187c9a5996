package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
)

// gate blocks whoever waits on it while closed.
type gate struct {
	mu   sync.Mutex
	open chan struct{}
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

// Stall makes the next waits block until Restore.
func (g *gate) Stall() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
		g.open = make(chan struct{})
	default:
	}
}

// Restore lets waits through again.
func (g *gate) Restore() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func (g *gate) wait() {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	<-open
}

// hangingDisk is the embedded engine's file, on a disk that stops
// answering while its gate is stopped: a commit's write blocks inside the
// engine (holding its lock) as on a hung NFS mount.
type hangingDisk struct {
	disk lungo.Store
	gate *gate
}

func (d hangingDisk) Load() (*lungo.Catalog, error) { return d.disk.Load() }

func (d hangingDisk) Store(c *lungo.Catalog) error {
	d.gate.wait()
	return d.disk.Store(c)
}

// staller stops a store from answering (Stall) and lets it answer again
// (Restore).
type staller interface {
	Stall()
	Restore()
}

// unansweringStore opens the store on the test's engine behind something
// that stops answering when the returned staller stalls: a stalling TCP
// proxy (storetest.Proxy) on MongoDB, a hanging disk under the embedded
// engine.
func unansweringStore(t *testing.T, opTimeout time.Duration) (*store.Store, staller) {
	var g staller
	cfg := storetest.Configure(t, store.Config{OperationTimeout: opTimeout, ConnectTimeout: 2 * time.Second})
	if cfg.URI != "" {
		cfg.URI, g = storetest.ProxyURI(t, cfg.URI)
	} else {
		disk := hangingDisk{disk: lungo.NewMemoryStore(), gate: newGate()}
		cfg.Backing, g = disk, disk.gate
	}
	st, err := store.Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	t.Cleanup(g.Restore) // runs first: let abandoned commands end before the store closes
	return st, g
}

// TestStoreThatStopsAnsweringIs503WithinTheOperationTimeout: with the
// store really not answering (MongoDB behind a proxy that holds every
// byte; the embedded engine on a disk that hangs), a webhook and an API
// POST answer 503 with Retry-After within the store's operation timeout
// (bounded generously at 3x), not at the function's deadline.
func TestStoreThatStopsAnsweringIs503WithinTheOperationTimeout(t *testing.T) {
	const opTimeout = time.Second
	reg, err := provider.LoadProviders("")
	require.NoError(t, err)
	tests := []struct {
		name     string
		deadline time.Duration // the function's, as deployed
		request  func(hooks *webhookStack) (http.Handler, *http.Request)
	}{
		{"webhook", 10 * time.Second, func(hooks *webhookStack) (http.Handler, *http.Request) {
			return hooks.handler, hooks.signed(t, "stripe", testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json"), "whsec_stripe_test", provider.SignOptions{})
		}},
		{"POST /api/workflows", 29 * time.Second, func(hooks *webhookStack) (http.Handler, *http.Request) {
			svc, err := submit.New(hooks.Store, hooks.Emitter, submit.Limits{}, nil, hooks.Logger)
			require.NoError(t, err)
			r := httptest.NewRequest(http.MethodPost, "/api/workflows", strings.NewReader(`{"name":"x","steps":["validate"],"priority":"low"}`))
			r.Header.Set("Authorization", "Bearer "+adminToken)
			return apiHandler(hooks.Env, svc), r
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, g := unansweringStore(t, opTimeout)
			env := testenv.New(t, testenv.Options{})
			env.Store = st
			env.Emitter, err = emit.New(emit.Config{Store: st, Publisher: env.Bus, PublishTimeout: time.Second, Logger: env.Logger})
			require.NoError(t, err)
			svc, err := ingestService(env, reg)
			require.NoError(t, err)
			hooks := &webhookStack{Env: env, providers: reg, handler: httpapi.Webhooks(svc, env.Logger)}
			h, r := tc.request(hooks)

			g.Stall()
			ctx, cancel := context.WithTimeout(r.Context(), tc.deadline)
			defer cancel()
			w := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(w, r.WithContext(ctx))
			took := time.Since(start)

			require.Equal(t, http.StatusServiceUnavailable, w.Code, w.Body.String())
			assert.Equal(t, httpapi.RetryAfterSeconds, w.Header().Get("Retry-After"))
			assert.Contains(t, w.Body.String(), "store_unavailable")
			assert.Less(t, took, 3*opTimeout, "answered within the store's operation timeout (3x slack), not the %s deadline", tc.deadline)
		})
	}
}
