package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestADisabledPartnersSendsWaitForTheRecheck: a partner the directory
// shows disabled, or one the auto-disable disabled during the group, has
// its sends deferred by DisabledRecheck; an enabled one's go on.
func TestADisabledPartnersSendsWaitForTheRecheck(t *testing.T) {
	c := newControlEnv(t, func(cfg *Config) { cfg.DisabledRecheck = 2 * time.Minute })
	tests := []struct {
		name        string
		disabled    bool
		autoDisable bool
		want        time.Time
	}{
		{"enabled", false, false, time.Time{}},
		{"disabled by the directory", true, false, c.clock.Now().Add(2 * time.Minute)},
		{"disabled during the group", false, true, c.clock.Now().Add(2 * time.Minute)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := c.sends(t, Partner{ID: "acme", Disabled: tc.disabled})
			s.disabled.Store(tc.autoDisable)
			v := disabledControl.before(context.Background(), s, &outcome{})
			assert.Equal(t, tc.want, v.deferTill)
			assert.NoError(t, v.err)
		})
	}
}
