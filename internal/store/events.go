package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
)

// EventDocument is one event in the events collection, shaped as seed 001's
// EventDocument: base fields at the top level for indexing, and the
// event-specific payload fields stored directly at document level beside
// them (extra="allow"), not under a payload wrapper. _id is the event_id.
type EventDocument struct {
	ID           string        `bson:"_id"`
	EventID      string        `bson:"event_id"`
	EventType    string        `bson:"event_type"`
	EventVersion string        `bson:"event_version"`
	Timestamp    time.Time     `bson:"timestamp"`
	AggregateID  string        `bson:"aggregate_id,omitempty"`
	Metadata     EventMetadata `bson:"metadata"`
	StoredAt     time.Time     `bson:"stored_at"`
	// TTLExpiresAt is seed 001's ttl_expires_at, the field idx_ttl deletes
	// by. It is absent until the event is archived (ArchiveDue), so the TTL
	// index never deletes an event that is not in events_archive.
	TTLExpiresAt *time.Time `bson:"ttl_expires_at,omitempty"`
	// ExecutionID ties together the events of one execution: the envelope's
	// correlationId (a webhook delivery, the workflow it started and that
	// workflow's tasks share one). Absent when there is none (sparse index).
	ExecutionID string `bson:"execution_id,omitempty"`
	// PartnerID is the provider or partner whose webhook delivery started
	// the execution (metadata.partnerId): a partner token reads exactly the
	// events carrying its id, through idx_partner_ts, however many
	// deliveries it has sent. Absent otherwise (sparse index).
	PartnerID string `bson:"partner_id,omitempty"`
	// Seq orders the events stored in the same millisecond: a number from
	// the storing process's clock in nanoseconds, strictly increasing within
	// the process and, within one InsertEvents, in the order given. An
	// aggregate's events are stored in the order they happen (a processor
	// stores a batch's lifecycle in order; later work is stored later), so
	// (timestamp, seq) is their causal order even when they share a
	// millisecond, where event ids are in no particular order.
	Seq int64 `bson:"seq"`
	// PublishPending is true from storage until the event is on Kafka; the
	// retry-sweeper publishes what stays pending (store-then-publish).
	PublishPending bool       `bson:"publish_pending,omitempty"`
	PublishedAt    *time.Time `bson:"published_at,omitempty"`
	// PublishTopic is the topic the event is for when it is not its event
	// type's (a replay to a target topic), so the retry-sweeper publishes
	// it where it was meant to go. Absent otherwise.
	PublishTopic string `bson:"publish_topic,omitempty"`
	// ReplaySessionID is the replay session that stored this event as a
	// copy of another (InsertReplayEvents): the session's snapshot
	// excludes it, so a replay never replays its own output whatever the
	// clocks of the processes that store and replay. Absent otherwise.
	ReplaySessionID string `bson:"replay_session_id,omitempty"`
	// DeadLetteredAt is when the retry-sweeper gave up publishing the event
	// and dead-lettered it (Store.DeadLetterUnpublished).
	DeadLetteredAt *time.Time `bson:"dead_lettered_at,omitempty"`
	// ArchivedAt is when the archiver copied the event to events_archive.
	ArchivedAt *time.Time `bson:"archived_at,omitempty"`
	// EnvelopeExtra and MetadataExtra are the fields of a consumed event's
	// envelope and metadata that this version does not name
	// (events.Envelope.Extra, events.Metadata.Extra): a newer 1.x
	// producer's additions, kept so a replay or a requeue publishes them
	// again. Absent otherwise.
	EnvelopeExtra bson.M `bson:"envelope_extra,omitempty"`
	MetadataExtra bson.M `bson:"metadata_extra,omitempty"`
	// PayloadReserved are the payload's fields whose names are the
	// document's own (a consumed event's payload may have a "timestamp"
	// or a "metadata"): they cannot be inlined beside them, so they are
	// kept here and put back into the payload by Envelope. Absent
	// otherwise.
	PayloadReserved bson.M `bson:"payload_reserved,omitempty"`
	// Payload holds the event-specific fields, inlined at the top level.
	Payload bson.M `bson:",inline"`
}

// EventMetadata is seed 001's metadata sub-document. Field names follow the
// seed's indexes (metadata.user_id, metadata.service_name); service_name is
// the envelope's metadata.source.
type EventMetadata struct {
	ServiceName string `bson:"service_name,omitempty"`
	// UserID is the envelope's metadata.userId: absent, null or a string.
	UserID        NullString `bson:"user_id,omitempty"`
	APIVersion    string     `bson:"api_version,omitempty"`
	ProcessorID   string     `bson:"processor_id,omitempty"`
	TraceID       string     `bson:"trace_id,omitempty"`
	CorrelationID string     `bson:"correlation_id,omitempty"`
	ReplayOf      string     `bson:"replay_of,omitempty"`
	// Attempt is metadata.attempt: the run of a workflow a rerun started.
	Attempt int `bson:"attempt,omitempty"`
}

// reservedEventFields are the document's own top-level names: a payload
// field named as one is kept in PayloadReserved instead of inlined.
var reservedEventFields = map[string]bool{
	"_id": true, "event_id": true, "event_type": true, "event_version": true, "timestamp": true,
	"aggregate_id": true, "metadata": true, "stored_at": true, "ttl_expires_at": true,
	"execution_id": true, "partner_id": true, "seq": true, "publish_pending": true, "published_at": true, "archived_at": true, "dead_lettered_at": true,
	"publish_topic": true, "replay_session_id": true, "envelope_extra": true, "metadata_extra": true, "payload_reserved": true,
}

// NewEventDocument converts an envelope into its stored form. storedAt is
// the storage time; the event is due for the archive, and after it for
// deletion, Config.EventTTL after it (ArchiveDue).
func NewEventDocument(env events.Envelope, storedAt time.Time) (EventDocument, error) {
	if env.EventID == "" || env.EventType == "" {
		return EventDocument{}, fmt.Errorf("store: event needs eventId and eventType (got %q, %q)", env.EventID, env.EventType)
	}
	payload := bson.M{}
	if len(env.Payload) > 0 && string(env.Payload) != "null" {
		var err error
		if err := oversize("event "+env.EventID+": the payload is", len(env.Payload)); err != nil {
			return EventDocument{}, err
		}
		if payload, err = jsonToBSON(env.Payload); err != nil {
			return EventDocument{}, fmt.Errorf("store: event %s: %w", env.EventID, err)
		}
	}
	var reserved bson.M
	for k, v := range payload {
		if reservedEventFields[k] {
			if reserved == nil {
				reserved = bson.M{}
			}
			reserved[k] = v
			delete(payload, k)
		}
	}
	version := env.SchemaVersion
	if version == "" {
		version = events.SchemaVersion
	}
	doc := EventDocument{
		ID:              env.EventID,
		EventID:         env.EventID,
		EventType:       string(env.EventType),
		EventVersion:    version,
		Timestamp:       bsonTime(env.Timestamp.Time),
		AggregateID:     env.AggregateID(),
		StoredAt:        bsonTime(storedAt),
		PublishPending:  env.EventType.Topic() != "",
		PayloadReserved: reserved,
		Payload:         payload,
	}
	var err error
	if doc.EnvelopeExtra, err = extraToBSON(env.EventID, env.Extra); err != nil {
		return EventDocument{}, err
	}
	if m := env.Metadata; m != nil {
		if doc.MetadataExtra, err = extraToBSON(env.EventID, m.Extra); err != nil {
			return EventDocument{}, err
		}
		doc.Metadata = EventMetadata{
			ServiceName: m.Source, UserID: UserIDOf(m.UserID), APIVersion: m.APIVersion,
			ProcessorID: m.ProcessorID, TraceID: m.TraceID, CorrelationID: m.CorrelationID, ReplayOf: m.ReplayOf,
			Attempt: m.Attempt,
		}
		doc.ExecutionID = m.CorrelationID
		doc.PartnerID = m.PartnerID
	}
	return doc, nil
}

// Envelope rebuilds the seed-003 envelope from the stored document.
func (d EventDocument) Envelope() (events.Envelope, error) {
	payload := d.Payload
	if payload == nil || d.PayloadReserved != nil {
		payload = maps.Clone(payload)
		if payload == nil {
			payload = bson.M{}
		}
		maps.Copy(payload, d.PayloadReserved)
	}
	var b bytes.Buffer
	err := writePlainJSON(&b, payload)
	raw := b.Bytes()
	if err != nil {
		return events.Envelope{}, fmt.Errorf("store: event %s: encode payload: %w", d.EventID, err)
	}
	env := events.Envelope{
		EventType:     events.Type(d.EventType),
		EventID:       d.EventID,
		Timestamp:     events.At(d.Timestamp),
		SchemaVersion: d.EventVersion,
		Payload:       json.RawMessage(raw),
	}
	if env.Extra, err = extraFromBSON(d.EventID, d.EnvelopeExtra); err != nil {
		return events.Envelope{}, err
	}
	if m := d.Metadata; m != (EventMetadata{}) || d.PartnerID != "" || d.MetadataExtra != nil {
		env.Metadata = &events.Metadata{
			Source: m.ServiceName, APIVersion: m.APIVersion, ProcessorID: m.ProcessorID,
			TraceID: m.TraceID, CorrelationID: m.CorrelationID, ReplayOf: m.ReplayOf, PartnerID: d.PartnerID,
			Attempt: m.Attempt, UserID: m.UserID.NullString,
		}
		if env.Metadata.Extra, err = extraFromBSON(d.EventID, d.MetadataExtra); err != nil {
			return events.Envelope{}, err
		}
	}
	return env, nil
}

// extraToBSON is the sub-document of an envelope's or metadata's Extra, nil
// when it has none.
func extraToBSON(eventID string, extra events.Extra) (bson.M, error) {
	if extra == "" {
		return nil, nil
	}
	m, err := jsonToBSON(json.RawMessage(extra))
	if err != nil {
		return nil, fmt.Errorf("store: event %s: added fields: %w", eventID, err)
	}
	return m, nil
}

// extraFromBSON is extraToBSON's inverse.
func extraFromBSON(eventID string, m bson.M) (events.Extra, error) {
	if m == nil {
		return "", nil
	}
	var b bytes.Buffer
	if err := writePlainJSON(&b, m); err != nil {
		return "", fmt.Errorf("store: event %s: encode added fields: %w", eventID, err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &members); err != nil {
		return "", fmt.Errorf("store: event %s: added fields: %w", eventID, err)
	}
	return events.ExtraOf(members)
}

// InsertEvent stores one event, then fans it out to the partners
// subscribed to it (FanOutEvents). A second insert of the same eventId
// returns ErrDuplicate and stores nothing again (its fan-out runs again,
// enqueuing only what a crash left out); callers treat that as success.
func (s *Store) InsertEvent(ctx context.Context, env events.Envelope) error {
	doc, err := NewEventDocument(env, s.now())
	if err != nil {
		return err
	}
	doc.Seq = s.nextSeq(1)
	_, err = s.events.InsertOne(ctx, doc)
	if err = normalise(err); err != nil && !errors.Is(err, ErrDuplicate) {
		return err
	}
	// A duplicate too: its first insert may have crashed before this.
	if ferr := s.FanOutEvents(ctx, []events.Envelope{env}); ferr != nil {
		return ferr
	}
	return err
}

// InsertResult reports a bulk insert: which ids were new and which were
// already stored (duplicates are not errors).
type InsertResult struct {
	Inserted   []string
	Duplicates []string
	// Pending are the Duplicates to publish again (filled by
	// InsertReplayEvents only: a replay's batch run again).
	Pending []string
}

// InsertEvents stores many events with one unordered bulk insert: a
// duplicate does not stop the others. The error is nil when every event is
// now stored, new or not.
func (s *Store) InsertEvents(ctx context.Context, envs []events.Envelope) (InsertResult, error) {
	return s.InsertEventsTo(ctx, "", envs)
}

// InsertEventsTo is InsertEvents for events published to topic rather than
// their event type's topic (empty: theirs): each is stored pending
// publication with topic as its PublishTopic.
func (s *Store) InsertEventsTo(ctx context.Context, topic string, envs []events.Envelope) (InsertResult, error) {
	return s.insertEvents(ctx, envs, func(doc *EventDocument, env events.Envelope) {
		if topic != "" && topic != env.EventType.Topic() {
			doc.PublishTopic, doc.PublishPending = topic, true
		}
	})
}

// InsertReplayEvents is InsertEventsTo for the copies replay session
// stores: each document names the session (ReplaySessionID) and is stored
// as published, because the session's checkpoint, not a mark per event,
// records what went out: a batch past the checkpoint (a crash before it)
// is published again in full, so every duplicate is listed in Pending.
// The replay marks the few its publish failed with MarkUnpublished, for
// the retry-sweeper.
func (s *Store) InsertReplayEvents(ctx context.Context, session, topic string, envs []events.Envelope) (InsertResult, error) {
	published := asPublished(topic)
	res, err := s.insertEvents(ctx, envs, func(doc *EventDocument, env events.Envelope) {
		published(doc, env)
		doc.ReplaySessionID = session
	})
	res.Pending = res.Duplicates
	return res, err
}

// asPublished stores each event as published when it is stored, bound
// for topic (empty: its event type's): for events something other than a
// mark per event answers for (a replay's checkpoint, a publish ledger,
// the producer of a consumed event).
func asPublished(topic string) func(*EventDocument, events.Envelope) {
	return func(doc *EventDocument, env events.Envelope) {
		at := doc.StoredAt
		doc.PublishPending, doc.PublishedAt = false, &at
		if topic != "" && topic != env.EventType.Topic() {
			doc.PublishTopic = topic
		}
	}
}

// MarkUnpublished hands events stored as published back to the
// retry-sweeper: their publish failed.
func (s *Store) MarkUnpublished(ctx context.Context, eventIDs ...string) error {
	if len(eventIDs) == 0 {
		return nil
	}
	_, err := s.events.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": eventIDs}},
		bson.M{"$set": bson.M{"publish_pending": true}, "$unset": bson.M{"published_at": ""}})
	return normalise(err)
}

// InsertConsumedEvents stores events a processor read from their topic
// that the history may not hold (a producer other than StreamOps
// published them), with every field they carry: as InsertEvents, but
// published when stored, so the retry-sweeper never publishes them again.
// An event stored before is a duplicate, not an error.
func (s *Store) InsertConsumedEvents(ctx context.Context, envs []events.Envelope) (InsertResult, error) {
	return s.insertEvents(ctx, envs, asPublished(""))
}

// insertEvents stores envs with one unordered bulk insert, each document
// as NewEventDocument builds it, numbered in the order given, then
// changed by adjust, and then fans them out to the partners subscribed to
// them (FanOutEvents): an error there is the insert's, for the caller to
// retry.
func (s *Store) insertEvents(ctx context.Context, envs []events.Envelope, adjust func(*EventDocument, events.Envelope)) (InsertResult, error) {
	if len(envs) == 0 {
		return InsertResult{}, nil
	}
	now, seq := s.now(), s.nextSeq(len(envs))
	res, err := insertAll(ctx, s.events, "events", inOneWrite, envs, func(env events.Envelope) (string, any, error) {
		doc, err := NewEventDocument(env, now)
		if err != nil {
			return "", nil, err
		}
		doc.Seq, seq = seq, seq+1 // the next number, in the order given
		adjust(&doc, env)
		return env.EventID, doc, nil
	})
	if err != nil {
		return res, err
	}
	// Every event, the duplicates too: a retry after a crash between the
	// insert and the fan-out restores the entries; those already there
	// are duplicates.
	return res, s.FanOutEvents(ctx, envs)
}

// GetEvent loads one event by id.
func (s *Store) GetEvent(ctx context.Context, eventID string) (EventDocument, error) {
	return getByID[EventDocument](ctx, s.events, eventID)
}

// GetEvents loads events by id with one query; ids not stored are absent
// from the map.
func (s *Store) GetEvents(ctx context.Context, eventIDs []string) (map[string]EventDocument, error) {
	return findByIDs(ctx, s.events, "events", eventIDs, func(d EventDocument) string { return d.ID })
}

// MarkPublished records that the events are on Kafka, in one command.
func (s *Store) MarkPublished(ctx context.Context, eventIDs ...string) error {
	if len(eventIDs) == 0 {
		return nil
	}
	// publish_pending first: an engine that evaluates the filter per
	// document (the embedded one) rejects published events on it before
	// looking at the id list.
	_, err := s.events.UpdateMany(ctx,
		bson.D{{Key: "publish_pending", Value: true}, {Key: "_id", Value: bson.M{"$in": eventIDs}}},
		bson.M{"$set": bson.M{"published_at": s.now()}, "$unset": bson.M{"publish_pending": ""}})
	return normalise(err)
}

// UnpublishedEvents returns up to limit events stored at or before
// storedBefore and still not published, oldest first: the retry-sweeper's
// safety net for the store-then-publish path.
func (s *Store) UnpublishedEvents(ctx context.Context, storedBefore time.Time, limit int) ([]EventDocument, error) {
	return findAll[EventDocument](ctx, s.events,
		bson.M{"publish_pending": true, "stored_at": bson.M{"$lte": bsonTime(storedBefore)}},
		options.Find().SetSort(bson.D{{Key: "stored_at", Value: 1}}).SetLimit(int64(limit)))
}

// SearchEvents finds events whose event_type, metadata.service_name,
// metadata.user_id or execution_id match the words of q, newest first.
//
// On MongoDB this is seed 001's text index (idx_text_search, $text). The
// embedded engine has neither text indexes nor $regex, so there it scans the
// collection newest first and keeps documents in which any of those fields
// contains any word of q, case-insensitively: a whole word is found by
// both, a part of a word only by the scan, another form of a word only by
// $text's stemming (docs/conformance.md).
//
// partnerID, when not empty, restricts the search to that partner's
// executions (partner_id) before the limit applies.
func (s *Store) SearchEvents(ctx context.Context, q string, partnerID string, limit int) ([]EventDocument, error) {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return nil, nil
	}
	newest := bson.D{{Key: "timestamp", Value: -1}, {Key: "event_id", Value: -1}}
	scope := bson.M{}
	if partnerID != "" {
		scope["partner_id"] = partnerID
	}
	if s.has.textIndex {
		scope["$text"] = bson.M{"$search": q}
		return findAll[EventDocument](ctx, s.events, scope, options.Find().SetSort(newest).SetLimit(int64(limit)))
	}
	cur, err := s.events.Find(ctx, scope, options.Find().SetSort(newest))
	if err != nil {
		return nil, normalise(err)
	}
	defer cur.Close(ctx)
	var out []EventDocument
	for cur.Next(ctx) && len(out) < limit {
		var doc EventDocument
		if err := cur.Decode(&doc); err != nil {
			return nil, normalise(err)
		}
		if matchesAny(words, doc.EventType, doc.Metadata.ServiceName, doc.Metadata.UserID.Value, doc.ExecutionID) {
			out = append(out, doc)
		}
	}
	return out, normalise(cur.Err())
}

func matchesAny(words []string, fields ...string) bool {
	for _, f := range fields {
		f = strings.ToLower(f)
		for _, w := range words {
			if f != "" && strings.Contains(f, w) {
				return true
			}
		}
	}
	return false
}

// nextSeq reserves n consecutive sequence numbers (see EventDocument.Seq)
// and returns the first: the clock in nanoseconds, or one past the last
// number given out when the clock has not moved on (or went back).
func (s *Store) nextSeq(n int) int64 {
	for {
		last := s.seq.Load()
		next := max(s.cfg.Now().UnixNano(), last+1)
		if s.seq.CompareAndSwap(last, next+int64(n)-1) {
			return next
		}
	}
}
