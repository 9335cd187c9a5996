package store

import "github.com/streamops/streamops/internal/pii"

// scrubPayload removes personal data from a payload bound for a column seed
// 004 keeps free of PII ("PII categorically prohibited" in
// webhook_events.payload and integration_outbox.payload). The store does
// it on every insert into those columns, so no writer (a webhook, a
// workflow submitted over the API, a replay, a record published straight
// to Kafka) can store one unscrubbed; a payload a caller scrubbed already
// passes through without a copy.
func scrubPayload(d JSONDoc) (JSONDoc, error) {
	if len(d) == 0 || len(d) > MaxDocumentSize {
		return d, nil // nothing, or refused whole before any encoding
	}
	out, err := pii.Scrub(d)
	if err != nil {
		return nil, &InvalidDocumentError{Reason: "the payload is not one JSON value", err: err}
	}
	return JSONDoc(out), nil
}
