package history

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/store"
)

// RecordPublisher produces raw records (bus.Client).
type RecordPublisher interface {
	PublishRecords(ctx context.Context, recs []*kgo.Record) error
}

// HeaderRequeuedFrom names the dead letter a requeued record came from.
const HeaderRequeuedFrom = "requeued-from"

// HeaderRequeuedBy names the principal who requeued the record. The
// record's event itself is unchanged (same eventId, so consumers and the
// store recognise it; its metadata.userId stays its producer's): a
// requeue redelivers an event, it makes no new one.
const HeaderRequeuedBy = "requeued-by"

// RequeueStore records requeued dead letters; *store.Store implements it.
type RequeueStore interface {
	RecordRequeues(ctx context.Context, ids ...string) (int, error)
	InsertEventsTo(ctx context.Context, topic string, envs []events.Envelope) (store.InsertResult, error)
	MarkPublished(ctx context.Context, eventIDs ...string) error
}

// Requeuer sends dead letters back to the topics they were read from, as
// they arrived (key, value, headers), so the processor tries them again.
type Requeuer struct {
	Store     RequeueStore
	Publisher RecordPublisher
}

// Requeue produces the dead letters' records with one flush and records the
// attempt on each (requeue_attempts + 1, status replayed), asked for by
// the principal userID (HeaderRequeuedBy). A record that fails again is
// dead-lettered anew at its new offset.
//
// Store first, as every writer: a record whose value is an event envelope
// is stored in the events collection (under its own eventId, so a
// duplicate when it was stored before) before it is produced, and marked
// published after, so GET /api/events shows every event a consumer
// received; if producing fails, the retry-sweeper publishes it. A value
// that is not an envelope is no event and is produced as it is.
func (q *Requeuer) Requeue(ctx context.Context, userID string, dls ...store.DeadLetterEntry) (int, error) {
	if len(dls) == 0 {
		return 0, nil
	}
	letters := make([]deadLetter, len(dls))
	for i, d := range dls {
		letters[i] = deadLetterFromDocument(d)
	}
	stored, err := q.storeEvents(ctx, letters)
	if err != nil {
		return 0, fmt.Errorf("history: requeue dead letters: store their events: %w", err)
	}
	recs := make([]*kgo.Record, len(letters))
	ids := make([]string, len(letters))
	for i, dl := range letters {
		recs[i], ids[i] = dl.record(userID), dl.id
	}
	if err := q.Publisher.PublishRecords(ctx, recs); err != nil {
		return 0, fmt.Errorf("history: requeue dead letters: %w", err)
	}
	if err := q.Store.MarkPublished(ctx, stored...); err != nil {
		return 0, fmt.Errorf("history: requeue dead letters: mark their events published: %w", err)
	}
	return q.Store.RecordRequeues(ctx, ids...)
}

// deadLetter is a dead-lettered record as a requeue decides it: where it
// goes back to and what it was.
type deadLetter struct {
	id, deadLetterID string
	topic            string
	key              string
	value            []byte
	headers          []header
}

type header struct{ key, value string }

// record is the record that sends dl back to its topic as it arrived, with
// HeaderRequeuedFrom naming it and HeaderRequeuedBy the principal userID
// (when known); an empty key stays no key.
func (dl deadLetter) record(userID string) *kgo.Record {
	rec := &kgo.Record{Topic: dl.topic, Value: dl.value}
	if dl.key != "" {
		rec.Key = []byte(dl.key)
	}
	for _, h := range dl.headers {
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: h.key, Value: []byte(h.value)})
	}
	rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: HeaderRequeuedFrom, Value: []byte(dl.deadLetterID)})
	if userID != "" {
		rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: HeaderRequeuedBy, Value: []byte(userID)})
	}
	return rec
}

// envelope is the event envelope dl's value holds; ok is false when the
// value is no event, one nested too deep for a consumer among them
// (jsonbody.MaxEventDepth), which goes back as it is and is dead-lettered
// again.
func (dl deadLetter) envelope() (env events.Envelope, ok bool) {
	if jsonbody.CheckDepth(dl.value, jsonbody.MaxEventDepth) != nil {
		return env, false
	}
	if json.Unmarshal(dl.value, &env) != nil || env.EventID == "" || env.EventType == "" {
		return env, false
	}
	return env, true
}

// storeEvents stores the envelopes among the dead letters' values, each
// for the topic its record goes back to, and returns the ids it newly
// stored.
func (q *Requeuer) storeEvents(ctx context.Context, dls []deadLetter) ([]string, error) {
	byTopic := map[string][]events.Envelope{}
	var topics []string
	for _, dl := range dls {
		env, ok := dl.envelope()
		if !ok {
			continue
		}
		if _, ok := byTopic[dl.topic]; !ok {
			topics = append(topics, dl.topic)
		}
		byTopic[dl.topic] = append(byTopic[dl.topic], env)
	}
	var stored []string
	for _, topic := range topics {
		res, err := q.Store.InsertEventsTo(ctx, topic, byTopic[topic])
		if err != nil {
			return nil, err
		}
		stored = append(stored, res.Inserted...)
	}
	return stored, nil
}
