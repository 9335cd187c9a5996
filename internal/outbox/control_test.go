package outbox

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// controlEnv is a relay on the real store and the test clock, for testing
// one control at a time.
type controlEnv struct {
	*testenv.Env
	clock *storetest.Clock
	r     *Relay
}

func newControlEnv(t *testing.T, mutate ...func(*Config)) *controlEnv {
	clock := storetest.NewClock()
	env := testenv.New(t, testenv.Options{Store: store.Config{Now: clock.Now}})
	cfg := Config{
		Store: env.Store, Kafka: KafkaDeliverer{Publisher: env.Bus},
		PartnerDeliverer: PartnerDeliverer{Secrets: provider.EnvSecrets{Lookup: func(string) string { return "" }}},
		Directory:        StaticPartners{}, Now: clock.Now, Logger: env.Logger,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	r, err := New(cfg)
	require.NoError(t, err)
	return &controlEnv{Env: env, clock: clock, r: r}
}

// sends is partner p's group of sends through the relay's chain, with
// breakers loaded as stored.
func (c *controlEnv) sends(t *testing.T, p Partner) *partnerSends {
	loaded, err := c.r.loadBreakers(context.Background(), []string{p.ID})
	require.NoError(t, err)
	return &partnerSends{r: c.r, p: p, brk: newBreakers(c.r.cfg.Breaker, loaded), chain: partnerControls,
		sem: make(chan struct{}, c.r.cfg.PartnerConcurrency)}
}

// stepLog records what a test chain's controls did, in order.
type stepLog struct {
	mu    sync.Mutex
	steps []string
}

func (tr *stepLog) add(s string) { tr.mu.Lock(); tr.steps = append(tr.steps, s); tr.mu.Unlock() }

// recording is a control named name that records its before and after and
// decides v.
func recording(tr *stepLog, name string, waits bool, v verdict) control {
	return control{name: name, waits: waits,
		before: func(context.Context, *partnerSends, *outcome) verdict { tr.add(name + ".before"); return v },
		after:  func(context.Context, *partnerSends, *outcome) { tr.add(name + ".after") }}
}

// TestTheChainDecidesInOrderAndUnwindsWhatLetTheSendGo: the befores run
// in the chain's order until one stops the send; then only the controls
// before it act, last first, and the outcome says why it stopped.
func TestTheChainDecidesInOrderAndUnwindsWhatLetTheSendGo(t *testing.T) {
	later := time.Date(2026, 1, 4, 2, 0, 0, 0, time.UTC)
	refused := errors.New("refused")
	tests := []struct {
		name      string
		stopAt    int // index of the control that stops it
		stop      verdict
		wantSteps []string
	}{
		{"the first defers", 0, verdict{deferTill: later}, []string{"a.before"}},
		{"the second fails", 1, verdict{err: refused}, []string{"a.before", "b.before", "a.after"}},
		{"the waiting one defers", 2, verdict{deferTill: later},
			[]string{"a.before", "b.before", "c.before", "b.after", "a.after"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &stepLog{}
			var c chain
			for i, name := range []string{"a", "b", "c"} {
				v := goOn
				if i == tc.stopAt {
					v = tc.stop
				}
				c = append(c, recording(tr, name, name == "c", v))
			}
			require.Equal(t, 2, c.waitsFrom())
			s := &partnerSends{chain: c, sem: make(chan struct{}, 2)}
			outcomes := make([]outcome, 1)
			s.run(context.Background(), []int{0}, outcomes)
			s.wg.Wait()
			assert.Equal(t, tc.wantSteps, tr.steps)
			assert.Equal(t, tc.stop.deferTill, outcomes[0].deferTill)
			assert.Equal(t, tc.stop.err, outcomes[0].err)
			assert.False(t, outcomes[0].attempted)
		})
	}
}

// TestPartnerControlsAreInTheirOrder: the order of the chain is the order
// the relay has always checked a send in, and only the gate waits.
func TestPartnerControlsAreInTheirOrder(t *testing.T) {
	var names []string
	for _, c := range partnerControls {
		names = append(names, c.name)
	}
	assert.Equal(t, []string{"disabled", "autodisable", "pause", "exhausted", "hold", "breaker", "gate"}, names)
	assert.Equal(t, len(partnerControls)-1, partnerControls.waitsFrom(), "only the last, the gate, waits")
}
