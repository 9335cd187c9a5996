package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheGateTakesAPlaceAndGivesItBack: with maxInFlight 1, a send takes
// the place and a second one is deferred (after waiting GateWait); once
// the first one's after gave the place back, the next goes on. A partner
// held while a send waited defers it and gives the place back.
func TestTheGateTakesAPlaceAndGivesItBack(t *testing.T) {
	ctx := context.Background()
	one := 1
	c := newControlEnv(t, func(cfg *Config) { cfg.Now = time.Now; cfg.GateWait = time.Millisecond })
	p := Partner{ID: "acme", MaxInFlight: &one}
	s := c.sends(t, p)

	first := &outcome{}
	require.False(t, gateControl.before(ctx, s, first).stops())
	require.NotNil(t, first.release)
	assert.False(t, gateControl.before(ctx, s, &outcome{}).deferTill.IsZero(), "no place left")
	gateControl.after(ctx, s, first)
	next := &outcome{}
	require.False(t, gateControl.before(ctx, s, next).stops(), "the place was given back")

	until := time.Now().Add(time.Hour)
	c.r.holds.note(p.ID, until)
	gateControl.after(ctx, s, next)
	assert.Equal(t, until, gateControl.before(ctx, s, &outcome{}).deferTill, "held while it waited")
	c.r.holds = holds{}
	assert.False(t, gateControl.before(ctx, s, &outcome{}).stops(), "the held send gave its place back")
}
