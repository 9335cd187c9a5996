package outbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/subscribe"
)

// LoadPartners reads the partner endpoints from a JSON file (env
// STREAMOPS_PARTNERS_FILE): [{"id":"acme","name":"Acme Corp","url":"https://…",
// "rateLimit":2,"maxInFlight":4}] (the last two optional). An empty path
// means no partners; a bad entry is an error naming its field.
func LoadPartners(path string) (map[string]Partner, error) {
	out := map[string]Partner{}
	if path == "" {
		return out, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("outbox: read partners: %w", err)
	}
	var list []Partner
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("outbox: partners file %s: %w", path, err)
	}
	for i, p := range list {
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("outbox: partners[%d].%w", i, err)
		}
		if _, dup := out[p.ID]; dup {
			return nil, fmt.Errorf("outbox: partners[%d].id: %q appears twice", i, p.ID)
		}
		out[p.ID] = p
	}
	return out, nil
}

// MinRateLimit is the lowest rateLimit a partner may have: one delivery
// a day. Below it the gap between two sends would not be a duration.
const MinRateLimit = 1.0 / 86400

// Validate reports the first bad field of p, as "field: reason" (the
// field named as in the partners file's JSON): the partners file's rules,
// which partners managed at run time (package partners) follow too.
func (p Partner) Validate() error { return p.validate() }

// validate reports the first bad field, as "field: reason".
func (p Partner) validate() error {
	switch {
	case p.ID == "" || p.ID == TargetKafka:
		return fmt.Errorf("id: must be set and not %q", TargetKafka)
	case p.URL == "":
		return fmt.Errorf("url: required")
	case p.RateLimit != nil && !(*p.RateLimit >= MinRateLimit) || p.RateLimit != nil && math.IsInf(*p.RateLimit, 0):
		return fmt.Errorf("rateLimit: %v is not a number of deliveries per second of at least %g (one a day); leave it out for no limit", *p.RateLimit, MinRateLimit)
	case p.MaxInFlight != nil && *p.MaxInFlight < 1:
		return fmt.Errorf("maxInFlight: %d is not a whole number of deliveries of at least 1; leave it out for no limit", *p.MaxInFlight)
	}
	for i, sub := range p.Subscriptions {
		if _, err := subscribe.Compile(sub); err != nil {
			var se *subscribe.Error
			if errors.As(err, &se) {
				return fmt.Errorf("subscriptions[%d].%s: %s", i, se.Field, se.Reason)
			}
			return fmt.Errorf("subscriptions[%d]: %w", i, err)
		}
	}
	for i, c := range p.ClearPersonalData {
		if c != AllClearPersonalData && !pii.Category(c).Valid() {
			names := make([]string, len(pii.Categories))
			for j, k := range pii.Categories {
				names[j] = string(k)
			}
			return fmt.Errorf("clearPersonalData[%d]: %q is not a category of personal data (%s, or %s)", i, c, strings.Join(names, ", "), AllClearPersonalData)
		}
	}
	return nil
}

// rateGuard widens the gap between two sends beyond what the rate limit
// allows: a request's way to the partner varies by a few milliseconds
// (the first one of a connection dials), and a partner counting arrivals
// must still see no more than its limit.
const rateGuard = 1.01

// sendInterval is the gap its rate limit puts between two sends to p,
// widened by rateGuard and rounded up to the store's millisecond; 0 when
// unlimited.
func (p Partner) sendInterval() time.Duration {
	if p.RateLimit == nil {
		return 0
	}
	return time.Duration(math.Ceil(rateGuard*1000 / *p.RateLimit)) * time.Millisecond
}
