package backoff

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestExponentialGrowsCapsAndJitters(t *testing.T) {
	tests := []struct {
		name    string
		policy  Exponential
		attempt int
		want    time.Duration
	}{
		{"first retry is the base", Exponential{Base: 30 * time.Second, Factor: 2, Max: time.Hour}, 1, 30 * time.Second},
		{"doubles", Exponential{Base: 30 * time.Second, Factor: 2, Max: time.Hour}, 3, 2 * time.Minute},
		{"capped", Exponential{Base: 30 * time.Second, Factor: 2, Max: time.Hour}, 20, time.Hour},
		{"attempt below one is one", Exponential{Base: time.Second, Factor: 2}, 0, time.Second},
		{"full jitter at the top of the range", Exponential{Base: 30 * time.Second, Factor: 2, Max: time.Hour, Jitter: 1, Rand: func() float64 { return 0.5 }}, 2, 30 * time.Second},
		{"full jitter can be zero", Exponential{Base: 30 * time.Second, Factor: 2, Jitter: 1, Rand: func() float64 { return 0 }}, 2, 0},
		{"partial jitter keeps a floor", Exponential{Base: 10 * time.Second, Factor: 2, Jitter: 0.2, Rand: func() float64 { return 0 }}, 1, 8 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.policy.Delay(tc.attempt)) })
	}
}

func TestPartnerGapsFollowTheSeed(t *testing.T) {
	var got []time.Duration
	for a := 1; a <= 5; a++ {
		got = append(got, PartnerGaps.Delay(a))
	}
	assert.Equal(t, []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 40 * time.Second}, got)
}
