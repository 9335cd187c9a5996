package outbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
)

// TestTheBreakerControlCountsResultsAndDefersWhileOpen: retryable failures
// reaching BreakerConfig.Failures open the breaker (stored), after which
// sends wait until its cooldown ends; a throttle, a refusal or an
// unattempted send does not count.
func TestTheBreakerControlCountsResultsAndDefersWhileOpen(t *testing.T) {
	ctx := context.Background()
	failed := outcome{attempted: true, err: &DeliveryError{Retryable: true, Err: errors.New("HTTP 502")}}
	tests := []struct {
		name     string
		outcome  outcome
		wantOpen bool
	}{
		{"failures", failed, true},
		{"throttles", outcome{attempted: true, err: &DeliveryError{Retryable: true, Err: errors.New("HTTP 502")}, holdTill: time.Now()}, false},
		{"refusals", outcome{attempted: true, err: &DeliveryError{Retryable: false, Err: errors.New("HTTP 400")}}, false},
		{"unattempted", outcome{err: &DeliveryError{Retryable: true, Err: errors.New("HTTP 502")}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newControlEnv(t, func(cfg *Config) { cfg.Breaker = BreakerConfig{Failures: 2, Cooldown: time.Minute} })
			s := c.sends(t, Partner{ID: "acme"})
			for range 2 {
				require.False(t, breakerControl.before(ctx, s, &outcome{}).stops())
				o := tc.outcome
				o.at = c.clock.Now()
				breakerControl.after(ctx, s, &o)
			}
			v := breakerControl.before(ctx, s, &outcome{})
			eps, err := c.Store.PartnerEndpoints(ctx, "acme")
			require.NoError(t, err)
			if !tc.wantOpen {
				assert.False(t, v.stops())
				return
			}
			assert.Equal(t, c.clock.Now().Truncate(time.Millisecond).Add(time.Minute), v.deferTill.UTC(), "until the cooldown ends")
			assert.Equal(t, status.BreakerOpen, eps["acme"].State, "the opening is stored")
		})
	}
}
