package ingest

import "github.com/streamops/streamops/internal/store"

// attempt is what NewAttempt decides on of a recorded new attempt: its
// number and the request that started it.
type attempt struct {
	number      int
	requestHash string
}

// attemptByKey finds the attempt an earlier request with the
// Idempotency-Key key started on row.
func attemptByKey(row store.WebhookEvent, key string) (attempt, bool) {
	if key == "" {
		return attempt{}, false
	}
	for _, a := range row.Attempts {
		if a.IdempotencyKey == key {
			return attempt{number: a.Attempt, requestHash: a.RequestHash}, true
		}
	}
	return attempt{}, false
}
