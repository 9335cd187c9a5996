package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPausedPartnersSendsWaitAsTheyWereDue: a send to a paused partner is
// deferred to when its entry was due (now when it was due at once), and
// once a send found the pause, the rest of the group waits without
// asking the store again, even after a resume.
func TestAPausedPartnersSendsWaitAsTheyWereDue(t *testing.T) {
	ctx := context.Background()
	c := newControlEnv(t)
	due := c.clock.Now().Add(-time.Minute)
	tests := []struct {
		name   string
		paused bool
		due    time.Time
		want   time.Time
	}{
		{"running", false, due, time.Time{}},
		{"paused, due a minute ago", true, due, due},
		{"paused, due unknown", true, time.Time{}, c.clock.Now()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.paused {
				_, _, err := c.Store.PausePartner(ctx, "acme", "ops-1", "")
				require.NoError(t, err)
				t.Cleanup(func() { _, _, _ = c.Store.ResumePartner(ctx, "acme", "ops-1") })
			}
			s := c.sends(t, Partner{ID: "acme"})
			o := &outcome{entry: Entry{claim: claim{due: tc.due}}}
			assert.Equal(t, tc.want, pauseControl.before(ctx, s, o).deferTill)
		})
	}

	t.Run("the group stays paused", func(t *testing.T) {
		_, _, err := c.Store.PausePartner(ctx, "acme", "ops-1", "")
		require.NoError(t, err)
		s := c.sends(t, Partner{ID: "acme"})
		o := &outcome{entry: Entry{claim: claim{due: due}}}
		require.Equal(t, due, pauseControl.before(ctx, s, o).deferTill)
		_, _, err = c.Store.ResumePartner(ctx, "acme", "ops-1")
		require.NoError(t, err)
		before := c.Store.Commands()
		assert.Equal(t, due, pauseControl.before(ctx, s, o).deferTill, "still paused for this group")
		assert.Equal(t, before, c.Store.Commands(), "without a store command")
	})
}
