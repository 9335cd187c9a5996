package outbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/store"
)

// recordingDisabler is a PartnerDisabler that records its calls and
// answers as told.
type recordingDisabler struct {
	calls   []string // partner ids
	reasons []string
	changed bool
	err     error
}

func (d *recordingDisabler) DisablePartner(_ context.Context, id, reason string, _ time.Time) (bool, error) {
	d.calls = append(d.calls, id)
	d.reasons = append(d.reasons, reason)
	return d.changed, d.err
}

// TestAutoDisableWarnsThenDisablesAFailingPartner drives the control
// through one failure at a given point of a failing run of a 10-minute
// period: before half of it nothing, at half and at 90 % one warning
// each (a run first seen past both gets the higher one), at the period
// the partner is disabled once, with partner.disabled when the disable
// changed it. A success, a throttle, an unattempted send or no Disabler
// do nothing; a failed disable leaves the group going.
func TestAutoDisableWarnsThenDisablesAFailingPartner(t *testing.T) {
	const period = 10 * time.Minute
	failed := outcome{attempted: true, err: &DeliveryError{Retryable: true, Err: errors.New("HTTP 502")}}
	tests := []struct {
		name         string
		out          outcome
		warned       int // FailingWarned before
		after        time.Duration
		disabler     *recordingDisabler
		wantEvents   []string
		wantWarned   int
		wantDisabled bool
		wantCalls    int
	}{
		{"early", failed, 0, 4 * time.Minute, &recordingDisabler{changed: true}, nil, 0, false, 0},
		{"half", failed, 0, 5 * time.Minute, &recordingDisabler{changed: true}, []string{"partner.failing:50"}, 50, false, 0},
		{"half, warned", failed, 50, 6 * time.Minute, &recordingDisabler{changed: true}, nil, 50, false, 0},
		{"90 % first seen", failed, 0, 9 * time.Minute, &recordingDisabler{changed: true}, []string{"partner.failing:90"}, 90, false, 0},
		{"90 %, warned at half", failed, 50, 9 * time.Minute, &recordingDisabler{changed: true}, []string{"partner.failing:90"}, 90, false, 0},
		{"the period", failed, 90, period, &recordingDisabler{changed: true}, []string{"partner.disabled"}, 0, true, 1},
		{"the period, disabled already", failed, 90, 11 * time.Minute, &recordingDisabler{changed: false}, nil, 0, true, 1},
		{"the period, the disable fails", failed, 90, period, &recordingDisabler{err: errors.New("store down")}, nil, 90, false, 1},
		{"a success", outcome{attempted: true}, 90, period, &recordingDisabler{changed: true}, nil, 90, false, 0},
		{"a throttle", outcome{attempted: true, err: failed.err, holdTill: time.Now()}, 90, period, &recordingDisabler{changed: true}, nil, 90, false, 0},
		{"unattempted", outcome{err: failed.err}, 90, period, &recordingDisabler{changed: true}, nil, 90, false, 0},
		{"no disabler", failed, 0, period, nil, nil, 0, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := newControlEnv(t, func(cfg *Config) {
				cfg.DisableAfter = period
				if tc.disabler != nil {
					cfg.Disabler = tc.disabler
				}
			})
			c.r.cfg.Operations = opsevents.New(c.Emitter, c.Logger)
			since := c.clock.Now().UTC().Truncate(time.Millisecond)
			s := c.sends(t, Partner{ID: "acme"})
			s.brk.brk["acme"] = &Breaker{FailingSince: &since, FailingWarned: tc.warned}
			o := tc.out
			o.at = since.Add(tc.after)
			autoDisableControl.after(ctx, s, &o)

			assert.Equal(t, tc.wantDisabled, s.disabled.Load())
			if tc.disabler != nil {
				assert.Len(t, tc.disabler.calls, tc.wantCalls)
			}
			b := s.brk.get("acme")
			assert.Equal(t, tc.wantWarned, b.FailingWarned)
			if tc.wantDisabled {
				assert.Nil(t, b.FailingSince, "the disable ends the run")
				assert.Contains(t, tc.disabler.reasons[0], "every delivery failed for 10m0s")
				assert.Contains(t, tc.disabler.reasons[0], "HTTP 502")
			}

			docs, _, err := c.Store.FindEvents(ctx, store.ReplayFilter{EventTypes: []string{
				string(events.PartnerFailing), string(events.PartnerDisabled)}}, nil, 10)
			require.NoError(t, err)
			var got []string
			for _, d := range docs {
				env, err := d.Envelope()
				require.NoError(t, err)
				switch env.EventType {
				case events.PartnerFailing:
					p, err := events.PayloadAs[events.PartnerFailingPayload](env)
					require.NoError(t, err)
					assert.True(t, since.Equal(p.FailingSince.Time))
					assert.True(t, since.Add(period).Equal(p.DisableAt.Time))
					got = append(got, "partner.failing:"+map[int]string{50: "50", 90: "90"}[p.Percent])
				case events.PartnerDisabled:
					p, err := events.PayloadAs[events.PartnerDisabledPayload](env)
					require.NoError(t, err)
					assert.Equal(t, "outbox-relay", p.By)
					assert.Equal(t, period.Milliseconds(), p.DisableAfterMs)
					assert.Equal(t, "HTTP 502", p.LastError)
					got = append(got, "partner.disabled")
				}
			}
			assert.Equal(t, tc.wantEvents, got)
		})
	}
}
