package outbox

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAHeldPartnersSendsWaitAndAThrottleHoldsIt: a send to a partner held
// until a later time waits until then; once the hold is over it goes on.
// A throttled attempt holds the partner in the store and for this relay;
// a failed or unattempted one does not.
func TestAHeldPartnersSendsWaitAndAThrottleHoldsIt(t *testing.T) {
	ctx := context.Background()
	c := newControlEnv(t)
	until := c.clock.Now().Add(30 * time.Second).Truncate(time.Millisecond)
	tests := []struct {
		name     string
		outcome  outcome
		wantHold bool
	}{
		{"not attempted", outcome{}, false},
		{"failed", outcome{attempted: true, err: &DeliveryError{Retryable: true, Err: errors.New("HTTP 502")}, attempt: &Attempt{StatusCode: 500}}, false},
		{"throttled", outcome{attempted: true, holdTill: until, attempt: &Attempt{StatusCode: http.StatusTooManyRequests, RetryAfter: "30"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Partner{ID: "p-" + tc.name}
			s := c.sends(t, p)
			require.False(t, holdControl.before(ctx, s, &outcome{}).stops())
			o := tc.outcome
			holdControl.after(ctx, s, &o)
			eps, err := c.Store.PartnerEndpoints(ctx, p.ID)
			require.NoError(t, err)
			v := holdControl.before(ctx, s, &outcome{})
			if !tc.wantHold {
				assert.False(t, v.stops())
				assert.Nil(t, eps[p.ID].HoldUntil)
				return
			}
			assert.Equal(t, until, v.deferTill, "the rest of the group waits for the hold")
			require.NotNil(t, eps[p.ID].HoldUntil)
			assert.True(t, until.Equal(*eps[p.ID].HoldUntil), "stored for every relay")
			c.clock.Advance(31 * time.Second)
			assert.False(t, holdControl.before(ctx, s, &outcome{}).stops(), "the hold is over")
		})
	}
}
