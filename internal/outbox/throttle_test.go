package outbox

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/status"
)

func TestRetryAfterIsSecondsOrAnHTTPDate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	for _, c := range []struct {
		name, raw string
		want      time.Duration
		ok        bool
	}{
		{"delta-seconds", "7", 7 * time.Second, true},
		{"with spaces", " 120 ", 2 * time.Minute, true},
		{"zero", "0", 0, true},
		{"an HTTP date", date(30 * time.Second), 30 * time.Second, true},
		{"an RFC 850 date", now.Add(time.Minute).Format(time.RFC850), time.Minute, true},
		{"an ANSI C date", now.Add(2 * time.Minute).Format(time.ANSIC), 2 * time.Minute, true},
		{"a past date is now", date(-time.Hour), 0, true},
		{"more seconds than the cap", "86400", time.Hour, true},
		{"a date beyond the cap", date(48 * time.Hour), time.Hour, true},
		{"more seconds than a duration holds", "99999999999999999999999", time.Hour, true},
		{"none", "", 0, false},
		{"negative", "-5", 0, false},
		{"a fraction", "1.5", 0, false},
		{"garbage", "soon", 0, false},
		{"a date without its zone", "Fri, 02 Jan 2026 03:05:05", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := parseRetryAfter(c.raw, now, time.Hour)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.want, got)
		})
	}
}

// TestOnlyA429Or503WithRetryAfterIsAThrottle is the outcome table of
// backpressure: what an answer does to the entry, the partner's hold and
// its breaker.
func TestOnlyA429Or503WithRetryAfterIsAThrottle(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const maxHold = time.Hour
	since := func(ago time.Duration) *time.Time { t := now.Add(-ago); return &t }
	for _, c := range []struct {
		name       string
		status     int
		retryAfter string
		since      *time.Time
		hold       time.Duration // 0: not a throttle
		want       status.Outcome
	}{
		{"429 with Retry-After", 429, "7", nil, 7 * time.Second, status.OutcomeThrottled},
		{"503 with Retry-After", 503, "30", nil, 30 * time.Second, status.OutcomeThrottled},
		{"503 with an HTTP date", 503, now.Add(90 * time.Second).Format(http.TimeFormat), nil, 90 * time.Second, status.OutcomeThrottled},
		{"Retry-After 0 holds the minimum", 429, "0", nil, MinHold, status.OutcomeThrottled},
		{"a huge Retry-After is capped", 429, "31536000", nil, maxHold, status.OutcomeThrottled},
		{"throttled again within MaxHold", 429, "60", since(59 * time.Minute), time.Minute, status.OutcomeThrottled},
		{"throttled past MaxHold is a failure", 429, "60", since(time.Hour + time.Second), 0, status.OutcomeRetry},
		{"429 without Retry-After is a failure", 429, "", nil, 0, status.OutcomeRetry},
		{"429 with a garbage Retry-After is a failure", 429, "later", nil, 0, status.OutcomeRetry},
		{"503 without Retry-After is a failure", 503, "", nil, 0, status.OutcomeRetry},
		{"500 with Retry-After is a failure", 500, "7", nil, 0, status.OutcomeRetry},
		{"408 with Retry-After is a failure", 408, "7", nil, 0, status.OutcomeRetry},
		{"200 is delivered", 200, "7", nil, 0, status.OutcomeDelivered},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := Attempt{StatusCode: c.status, RetryAfter: c.retryAfter, Err: statusError(c.status, "answer")}
			hold, ok := throttleHold(a, now, c.since, maxHold)
			assert.Equal(t, c.hold != 0, ok)
			assert.Equal(t, c.hold, hold)
			var holdTill time.Time
			if ok {
				holdTill = now.Add(hold)
			}
			e := Entry{Attempts: 2, MaxAttempts: 5, ThrottledSince: c.since}
			got, next := e.outcome(delivered(a.Err), time.Time{}, holdTill, true, backoff.PartnerGaps, now)
			assert.Equal(t, c.want, got)
			if ok {
				assert.Equal(t, holdTill, next, "retried when the hold ends")
			}
		})
	}
	// A throttle on the fifth attempt is no failure: it is not dead.
	e := Entry{Attempts: 5, MaxAttempts: 5}
	got, _ := e.outcome(&DeliveryError{Status: 429, Retryable: true, Err: errors.New("slow down")}, time.Time{}, now.Add(time.Second), true, backoff.PartnerGaps, now)
	assert.Equal(t, status.OutcomeThrottled, got)
}

func TestAPartnersRateLimitAndMaxInFlightAreCheckedAtLoad(t *testing.T) {
	for _, c := range []struct {
		name, entry, err string
	}{
		{"both", `"rateLimit":2,"maxInFlight":4`, ""},
		{"a fraction of a delivery per second", `"rateLimit":0.5`, ""},
		{"one a day", `"rateLimit":0.0000115741`, ""},
		{"neither", ``, ""},
		{"zero rate", `"rateLimit":0`, "partners[0].rateLimit: 0 is not a number of deliveries per second"},
		{"negative rate", `"rateLimit":-1`, "partners[0].rateLimit: -1 is not"},
		{"less than one a day", `"rateLimit":0.00001`, "partners[0].rateLimit: 1e-05 is not"},
		{"a rate as text", `"rateLimit":"2/s"`, "rateLimit"},
		{"a rate of null is no limit", `"rateLimit":null`, ""},
		{"zero in flight", `"maxInFlight":0`, "partners[0].maxInFlight: 0 is not a whole number of deliveries of at least 1"},
		{"negative in flight", `"maxInFlight":-3`, "partners[0].maxInFlight: -3 is not"},
		{"a fraction in flight", `"maxInFlight":1.5`, "maxInFlight"},
		{"in flight as text", `"maxInFlight":"4"`, "maxInFlight"},
		{"subscriptions", `"subscriptions":[{"eventTypes":["workflow.completed"],"filter":{"payload.name":"orders"}},{"eventTypes":["task.*"]}]`, ""},
		{"a subscription to an unknown type", `"subscriptions":[{"eventTypes":["task.*"]},{"eventTypes":["workflow.done"]}]`,
			`partners[0].subscriptions[1].eventTypes[0]: "workflow.done" is not an event type`},
		{"a subscription with an operator not allowed", `"subscriptions":[{"eventTypes":["*"],"filter":{"payload.name":{"$regex":"o"}}}]`,
			"partners[0].subscriptions[0].filter.payload.name.$regex: operator $regex is not allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			entry := `{"id":"acme","name":"Acme","url":"https://hooks.acme.example/in"`
			if c.entry != "" {
				entry += "," + c.entry
			}
			got, err := LoadPartners(writePartners(t, "["+entry+"}]"))
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			require.Contains(t, got, "acme")
		})
	}
	p, err := LoadPartners(writePartners(t, `[{"id":"acme","url":"https://a.example","rateLimit":3,"maxInFlight":2}]`))
	require.NoError(t, err)
	assert.Equal(t, 337*time.Millisecond, p["acme"].sendInterval(), "1% wider, rounded up: never faster than the limit")
	assert.Equal(t, 2, *p["acme"].MaxInFlight)
	p, err = LoadPartners(writePartners(t, `[{"id":"acme","url":"https://a.example"}]`))
	require.NoError(t, err)
	assert.Zero(t, p["acme"].sendInterval())
	assert.Nil(t, p["acme"].MaxInFlight)
}

func writePartners(t *testing.T, body string) string {
	path := filepath.Join(t.TempDir(), "partners.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}
