package backoff

import (
	"math/rand/v2"
	"time"
)

// Policy returns the delay before retry number attempt (1 = the first
// retry, after the first failure).
type Policy interface {
	Delay(attempt int) time.Duration
}

// Exponential is Base·Factor^(attempt-1), capped at Max, with jitter:
//   - Full jitter (Jitter = 1): a uniform delay in [0, d], AWS's recommended
//     spread for many clients retrying at once;
//   - Jitter = j in (0,1): a uniform delay in [d·(1-j), d];
//   - Jitter = 0: exactly d.
type Exponential struct {
	Base   time.Duration
	Factor float64
	Max    time.Duration
	Jitter float64
	// Rand returns a float64 in [0,1); default math/rand/v2.Float64.
	Rand func() float64
}

// Delay implements Policy.
func (e Exponential) Delay(attempt int) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := float64(e.Base)
	for i := 1; i < attempt && (e.Max <= 0 || d < float64(e.Max)); i++ {
		d *= e.Factor
	}
	if e.Max > 0 && d > float64(e.Max) {
		d = float64(e.Max)
	}
	if e.Jitter > 0 {
		r := rand.Float64
		if e.Rand != nil {
			r = e.Rand
		}
		j := min(e.Jitter, 1)
		d = d*(1-j) + d*j*r()
	}
	return time.Duration(d)
}

// Schedule is a fixed list of delays; attempts past its end reuse the last.
type Schedule []time.Duration

// Delay implements Policy.
func (s Schedule) Delay(attempt int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[min(max(attempt, 1), len(s))-1]
}

// PartnerGaps is seed 000's retry tracking pattern: 5, 10, 20 and 40 s
// between the five attempts of a partner delivery.
var PartnerGaps = Schedule{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second}
