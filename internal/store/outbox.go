package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// DefaultMaxAttempts is max_attempts when an entry is enqueued without one.
const DefaultMaxAttempts = 5

// OutboxEntry is an integration_outbox row of seed 004 as a document, plus
// the lease a claim puts on it. _id is outbox_id (see OutboxID). Payload is
// scrubbed of personal data when the entry is enqueued.
type OutboxEntry struct {
	ID             string     `bson:"_id" json:"-"`
	OutboxID       string     `bson:"outbox_id" json:"outbox_id"`
	AggregateType  string     `bson:"aggregate_type" json:"aggregate_type"`
	AggregateID    string     `bson:"aggregate_id" json:"aggregate_id"`
	EventType      string     `bson:"event_type" json:"event_type"`
	TargetProvider string     `bson:"target_provider" json:"target_provider"`
	Payload        JSONDoc    `bson:"payload" json:"payload"`
	Status         string     `bson:"status" json:"status"`
	Attempts       int        `bson:"attempts" json:"attempts"`
	MaxAttempts    int        `bson:"max_attempts" json:"max_attempts"`
	NextAttemptAt  time.Time  `bson:"next_attempt_at" json:"next_attempt_at"`
	LastError      string     `bson:"last_error,omitempty" json:"last_error,omitempty"`
	CreatedAt      time.Time  `bson:"created_at" json:"created_at"`
	CompletedAt    *time.Time `bson:"completed_at,omitempty" json:"completed_at,omitempty"`
	// LeaseExpiresAt is when a claim lapses; an entry still processing after
	// it belongs to a relay that died and is reclaimed.
	LeaseExpiresAt *time.Time `bson:"lease_expires_at,omitempty" json:"lease_expires_at,omitempty"`
	// ClaimToken identifies the claim that holds the entry; settling checks
	// it, so a relay whose lease was reclaimed cannot overwrite the newer
	// claim's outcome.
	ClaimToken string `bson:"claim_token,omitempty" json:"-"`
	// RequeuedBy is the principal id of the operator who last requeued the
	// entry out of dead_letter (RequeueOutboxEntry), RequeuedAt when, and
	// Requeues how often: each requeue started a new round of attempts.
	// Not in seed 004, whose lifecycle ends at dead_letter.
	RequeuedBy string     `bson:"requeued_by,omitempty" json:"requeued_by,omitempty"`
	RequeuedAt *time.Time `bson:"requeued_at,omitempty" json:"requeued_at,omitempty"`
	Requeues   int        `bson:"requeues,omitempty" json:"requeues,omitempty"`
	// ResentBy is the principal id of the operator who last sent a
	// completed entry again (ResendOutboxEntry), ResentAt when, and
	// Resends how often; each resend started a new round of attempts.
	// Not in seed 004.
	ResentBy string     `bson:"resent_by,omitempty" json:"resent_by,omitempty"`
	ResentAt *time.Time `bson:"resent_at,omitempty" json:"resent_at,omitempty"`
	Resends  int        `bson:"resends,omitempty" json:"resends,omitempty"`
	// TraceParent is the W3C traceparent of the step that enqueued the
	// entry: each delivery continues that trace and sends its own span as
	// the request's traceparent. TraceID is its trace id, for lookups.
	// Not in seed 004.
	TraceParent string `bson:"traceparent,omitempty" json:"traceparent,omitempty"`
	TraceID     string `bson:"trace_id,omitempty" json:"trace_id,omitempty"`
	// DeliveryLog is the entry's delivery attempts, oldest first, the
	// latest MaxDeliveryLog of them. Not in seed 004.
	DeliveryLog []DeliveryAttempt `bson:"delivery_log,omitempty" json:"delivery_log,omitempty"`
	// ThrottledSince is when the partner first answered this entry with
	// a hold (429/503 with Retry-After) that is still unbroken: it bounds
	// how long throttles may go on without using an attempt. Cleared by
	// any other answer. Not in seed 004.
	ThrottledSince *time.Time `bson:"throttled_since,omitempty" json:"throttled_since,omitempty"`
}

// MaxDeliveryLog is how many delivery attempts an outbox entry keeps.
const MaxDeliveryLog = 50

// DeliveryAttempt is one HTTP request of a partner delivery: when it
// started, how long it took, the partner's answer (StatusCode, 0 when
// none came; ResponseBody, the first KiB of its body) or the error, what
// the relay made of it (Outcome: the entry's status after it), and the
// span that sent it.
type DeliveryAttempt struct {
	At         time.Time `bson:"at" json:"at"`
	DurationMs int64     `bson:"duration_ms" json:"duration_ms"`
	StatusCode int       `bson:"status_code,omitempty" json:"status_code,omitempty"`
	Error      string    `bson:"error,omitempty" json:"error,omitempty"`
	Outcome    string    `bson:"outcome" json:"outcome"`
	SpanID     string    `bson:"span_id,omitempty" json:"span_id,omitempty"`
	// ResponseBody is the first MaxResponseBody bytes of the answer's
	// body as valid UTF-8 text (a binary body is shown as hex; see
	// outbox.BodyExcerpt), so an operator sees why a partner refused.
	ResponseBody string `bson:"response_body,omitempty" json:"response_body,omitempty"`
}

// MaxResponseBody is how much of a partner's answer body a delivery log
// row keeps: a KiB, enough for an error document, bounded so 50 rows stay
// far below a document's size limit.
const MaxResponseBody = 1024

// EnqueueOutbox stores new outbox entries with one unordered bulk insert,
// their payloads scrubbed of personal data (pii.Scrub; seed 004).
// OutboxID must be set (derive it with OutboxID so a repeated enqueue is a
// duplicate); status, attempts, max_attempts, next_attempt_at and
// created_at get their defaults (pending, 0, DefaultMaxAttempts, now, now).
// Entries already enqueued are reported in InsertResult.Duplicates.
func (s *Store) EnqueueOutbox(ctx context.Context, entries ...OutboxEntry) (InsertResult, error) {
	now := s.now()
	return insertAll(ctx, s.outbox, "outbox entries", inOneWrite, entries, func(e OutboxEntry) (string, any, error) {
		if e.OutboxID == "" || e.TargetProvider == "" {
			return "", nil, errors.New("store: outbox entry needs outbox_id and target_provider")
		}
		var err error
		if e.Payload, err = scrubPayload(e.Payload); err != nil {
			return "", nil, err
		}
		e.ID, e.Status, e.Attempts = e.OutboxID, status.OutboxPending, 0
		e.LeaseExpiresAt, e.ClaimToken, e.CompletedAt = nil, "", nil
		if e.MaxAttempts <= 0 {
			e.MaxAttempts = DefaultMaxAttempts
		}
		if e.NextAttemptAt.IsZero() {
			e.NextAttemptAt = now
		}
		e.NextAttemptAt = bsonTime(e.NextAttemptAt)
		e.CreatedAt = now
		return e.OutboxID, e, nil
	})
}

// GetOutboxEntry loads an entry by outbox_id.
func (s *Store) GetOutboxEntry(ctx context.Context, outboxID string) (OutboxEntry, error) {
	return getByID[OutboxEntry](ctx, s.outbox, outboxID)
}

// idOnly is a document read for its _id alone.
type idOnly struct {
	ID string `bson:"_id"`
}

// claimRounds bounds how often ClaimDue retries when concurrent claimers took
// every candidate it saw.
const claimRounds = 8

// ClaimDue claims up to limit due entries (status pending or failed,
// next_attempt_at <= now), oldest next_attempt_at first, and returns them in
// that order. Each claimed entry is atomically set to processing with a
// lease until now+lease and attempts+1.
//
// Entries of a blocked partner (BlockedPartners: paused or held) are left waiting,
// in the status they have.
//
// A claim is four commands whatever the batch size: list the blocked
// partners, find the candidate ids, one conditional UpdateMany that takes
// those still due (so two claimers never take the same entry), and one
// read-back by the claim's token. When
// concurrent claimers took every candidate, it looks again (a few rounds),
// so an empty result means nothing was due.
func (s *Store) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]OutboxEntry, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("store: ClaimDue limit must be positive, got %d", limit)
	}
	if lease <= 0 {
		return nil, fmt.Errorf("store: ClaimDue lease must be positive, got %s", lease)
	}
	now = bsonTime(now)
	due, _, err := s.notBlocked(ctx, bson.M{"status": bson.M{"$in": status.OutboxDue()}, "next_attempt_at": bson.M{"$lte": now}}, now)
	if err != nil {
		return nil, err
	}
	oldest := bson.D{{Key: "next_attempt_at", Value: 1}, {Key: "_id", Value: 1}}
	for range claimRounds {
		candidates, err := findAll[idOnly](ctx, s.outbox, due, options.Find().SetSort(oldest).SetLimit(int64(limit)).
			SetProjection(bson.M{"_id": 1}))
		if err != nil {
			return nil, fmt.Errorf("store: find due outbox entries: %w", err)
		}
		if len(candidates) == 0 {
			return nil, nil
		}
		ids := make([]string, len(candidates))
		for i, c := range candidates {
			ids[i] = c.ID
		}
		token := uuid.NewString()
		filter := bson.M{"_id": bson.M{"$in": ids}}
		for k, v := range due {
			filter[k] = v
		}
		res, err := s.outbox.UpdateMany(ctx, filter, bson.M{
			"$set": bson.M{"status": status.OutboxProcessing, "lease_expires_at": now.Add(lease), "claim_token": token},
			"$inc": bson.M{"attempts": 1},
		})
		if err != nil {
			return nil, fmt.Errorf("store: claim outbox entries: %w", err)
		}
		if res.ModifiedCount == 0 {
			continue // all taken by concurrent claimers: look again
		}
		claimed, err := findAll[OutboxEntry](ctx, s.outbox, bson.M{"claim_token": token}, options.Find().SetSort(oldest).
			SetProjection(bson.M{"delivery_log": 0})) // the relay appends to it, never reads it
		if err != nil {
			return nil, fmt.Errorf("store: read claimed outbox entries: %w", err)
		}
		return claimed, nil
	}
	return nil, nil
}

// Settlement is the outcome of one claimed entry.
type Settlement struct {
	// Entry is the entry as ClaimDue returned it (its id and claim token are
	// what is matched).
	Entry OutboxEntry
	// Outcome of the attempt. A Retry of an entry whose attempts are
	// exhausted is recorded as DeadLettered.
	Outcome status.Outcome
	// NextAttemptAt is when to retry (Retry only).
	NextAttemptAt time.Time
	// Error is recorded as last_error (Retry and DeadLetter).
	Error string
	// Attempt, when set, is the attempt's row of the entry's delivery
	// log, appended in the same update (the oldest dropped beyond
	// MaxDeliveryLog); its Outcome is set to the status the settlement
	// leaves, or status.OutcomeThrottledLog for a throttle.
	Attempt *DeliveryAttempt
	// ThrottledSince is recorded as throttled_since (Throttled only):
	// the entry's first throttle of this unbroken run.
	ThrottledSince time.Time
}

// SettleOutbox records the outcomes of claimed entries with one bulk write.
// An entry whose claim has since been reclaimed (its token no longer
// matches) is left alone: its newer claim will settle it. It returns how
// many entries were settled.
func (s *Store) SettleOutbox(ctx context.Context, settlements ...Settlement) (int, error) {
	now := s.now()
	res, err := writeEach(ctx, s.outbox, "settle outbox entries", settlements, func(st Settlement) (mongo.WriteModel, error) {
		if st.Entry.ClaimToken == "" {
			return nil, fmt.Errorf("store: settle outbox %s: entry was not claimed", st.Entry.OutboxID)
		}
		outcome := st.Outcome.Recorded(st.Entry.Attempts, st.Entry.MaxAttempts)
		set := bson.M{"status": outcome.Status(st.Entry.Attempts)}
		unset := bson.M{"claim_token": "", "lease_expires_at": ""}
		update := bson.M{"$set": set, "$unset": unset}
		logOutcome := set["status"].(string)
		switch outcome {
		case status.OutcomeDelivered:
			set["completed_at"] = now
			unset["throttled_since"] = ""
		case status.OutcomeRetry:
			set["next_attempt_at"], set["last_error"] = bsonTime(st.NextAttemptAt), st.Error
			unset["throttled_since"] = ""
		case status.OutcomeDeadLettered:
			set["last_error"] = st.Error
			unset["throttled_since"] = ""
		case status.OutcomeDeferred:
			set["next_attempt_at"] = bsonTime(st.NextAttemptAt)
			update["$inc"] = bson.M{"attempts": -1}
		case status.OutcomeThrottled:
			if st.ThrottledSince.IsZero() {
				return nil, fmt.Errorf("store: settle outbox %s: a throttle needs ThrottledSince", st.Entry.OutboxID)
			}
			set["next_attempt_at"], set["throttled_since"] = bsonTime(st.NextAttemptAt), bsonTime(st.ThrottledSince)
			update["$inc"] = bson.M{"attempts": -1}
			logOutcome = status.OutcomeThrottledLog
		default:
			return nil, fmt.Errorf("store: settle outbox %s: unknown outcome %d", st.Entry.OutboxID, st.Outcome)
		}
		if st.Attempt != nil {
			a := *st.Attempt
			a.At, a.Outcome = bsonTime(a.At), logOutcome
			update["$push"] = bson.M{"delivery_log": bson.D{{Key: "$each", Value: bson.A{a}}, {Key: "$slice", Value: -MaxDeliveryLog}}}
		}
		return mongo.NewUpdateOneModel().
			SetFilter(bson.M{"_id": st.Entry.ID, "claim_token": st.Entry.ClaimToken, "status": status.OutboxProcessing}).
			SetUpdate(update), nil
	})
	if err != nil {
		return 0, err
	}
	return int(res.ModifiedCount), nil
}

// MarkCompleted records a successful delivery of a claimed entry.
func (s *Store) MarkCompleted(ctx context.Context, e OutboxEntry) error {
	return s.settleOne(ctx, Settlement{Entry: e, Outcome: status.OutcomeDelivered})
}

// MarkFailed records a failed attempt to be retried at next; an entry with
// no attempts left is dead-lettered instead.
func (s *Store) MarkFailed(ctx context.Context, e OutboxEntry, next time.Time, errMsg string) error {
	return s.settleOne(ctx, Settlement{Entry: e, Outcome: status.OutcomeRetry, NextAttemptAt: next, Error: errMsg})
}

// DeadLetter records that a claimed entry will never be delivered.
func (s *Store) DeadLetter(ctx context.Context, e OutboxEntry, errMsg string) error {
	return s.settleOne(ctx, Settlement{Entry: e, Outcome: status.OutcomeDeadLettered, Error: errMsg})
}

// ErrLeaseLost is returned when settling an entry whose claim was reclaimed
// after its lease expired.
var ErrLeaseLost = errors.New("store: outbox lease lost")

func (s *Store) settleOne(ctx context.Context, st Settlement) error {
	n, err := s.SettleOutbox(ctx, st)
	if err == nil && n == 0 {
		return fmt.Errorf("%w: %s", ErrLeaseLost, st.Entry.OutboxID)
	}
	return err
}

// ReclaimExpiredLeases returns entries whose lease expired while processing
// (their relay died or timed out) to failed, due now, so the next ClaimDue
// takes them. The interrupted attempt stays counted: it may have reached the
// target. The partner deliveries whose claim lapsed by now leave PROCESSING
// too (ReleaseExpiredPartnerClaims). It returns how many entries were
// reclaimed.
func (s *Store) ReclaimExpiredLeases(ctx context.Context, now time.Time) (int, error) {
	now = bsonTime(now)
	n, err := updateMatching(ctx, s.outbox,
		bson.M{"status": status.OutboxProcessing, "lease_expires_at": bson.M{"$lte": now}},
		bson.M{
			"$set":   bson.M{"status": status.OutboxFailed, "next_attempt_at": now, "last_error": "lease expired before the attempt was settled"},
			"$unset": bson.M{"claim_token": "", "lease_expires_at": ""},
		})
	if err != nil {
		return int(n), fmt.Errorf("store: reclaim expired leases: %w", err)
	}
	// Their partner deliveries' claims lapsed with them.
	if _, err := s.ReleaseExpiredPartnerClaims(ctx, now); err != nil {
		return int(n), err
	}
	return int(n), nil
}

// OldestPendingOutbox is the created_at of the oldest entry still waiting
// for delivery (pending or failed); ok is false when none waits. The relay
// reports its age as a metric to alarm on.
func (s *Store) OldestPendingOutbox(ctx context.Context) (oldest time.Time, ok bool, err error) {
	e, err := findOne[OutboxEntry](ctx, s.outbox, bson.M{"status": bson.M{"$in": status.OutboxDue()}},
		options.FindOne().SetSort(bson.D{{Key: "created_at", Value: 1}}))
	if errors.Is(err, ErrNotFound) {
		return time.Time{}, false, nil
	}
	return e.CreatedAt, err == nil, err
}

// NextDueOutbox is the earliest next_attempt_at of the entries waiting for
// delivery (pending or failed) that ClaimDue may take, those of blocked
// partners left out but a held partner's counted as due when its hold
// ends; ok is false when none waits. A relay that keeps
// serving through its schedule's period sleeps until it.
func (s *Store) NextDueOutbox(ctx context.Context) (next time.Time, ok bool, err error) {
	waiting, held, err := s.notBlocked(ctx, bson.M{"status": bson.M{"$in": status.OutboxDue()}}, s.now())
	if err != nil {
		return time.Time{}, false, err
	}
	e, err := findOne[OutboxEntry](ctx, s.outbox, waiting,
		options.FindOne().SetSort(bson.D{{Key: "next_attempt_at", Value: 1}}).
			SetProjection(bson.M{"next_attempt_at": 1}))
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return time.Time{}, false, err
	default:
		next, ok = e.NextAttemptAt, true
	}
	for _, until := range held { // a held partner's entries fall due when its hold ends
		if !ok || until.Before(next) {
			next, ok = until, true
		}
	}
	return next, ok, nil
}

// RequeueOutboxEntry is an operator's requeue of a dead-lettered entry:
// it starts a new round of attempts. The entry becomes pending, due now,
// with attempts 0 (max_attempts unchanged, so a partner delivery gets seed
// 000's five attempts again, recorded as resilienceAttemptCount 1..5),
// and records who (the principal id by) and when; last_error keeps why the
// previous round ended until the next attempt overwrites it. Its partner
// delivery, if it has one, goes back to PENDING with no attempts recorded
// (restartPartnerDeliveries). It returns the entry as the requeue left it.
//
// An unknown id is ErrNotFound; an entry in another status is a
// *StatusConflictError naming it (ErrStatusConflict), and nothing changes.
// One conditional update decides, so two operators requeueing at once
// start one round.
func (s *Store) RequeueOutboxEntry(ctx context.Context, outboxID, by string) (OutboxEntry, error) {
	return s.newRound(ctx, outboxID, "requeue", status.OutboxRequeueable(), requeueMarks(by, bsonTime(s.now())))
}

// ResendOutboxEntry is an operator's resend of a completed entry: a new
// round of attempts exactly as RequeueOutboxEntry starts, which sends it
// again (same webhook-id: it is the same message), recorded as resent_by,
// resent_at and one more resends; completed_at is cleared until the new
// round completes. The delivery log is kept, so the new attempts follow
// the earlier ones. An entry not completed is a *StatusConflictError.
func (s *Store) ResendOutboxEntry(ctx context.Context, outboxID, by string) (OutboxEntry, error) {
	now := bsonTime(s.now())
	return s.newRound(ctx, outboxID, "resend", status.OutboxResendable(), bson.M{
		"$set":   bson.M{"resent_by": by, "resent_at": now},
		"$inc":   bson.M{"resends": 1},
		"$unset": bson.M{"completed_at": ""},
	})
}

// requeueMarks is the update of a requeue by by at now, besides the new
// round.
func requeueMarks(by string, now time.Time) bson.M {
	return bson.M{"$set": bson.M{"requeued_by": by, "requeued_at": now}, "$inc": bson.M{"requeues": 1}}
}

// newRound starts a new round of attempts of entry outboxID when its
// status is one of allowed: pending, due now, attempts 0, plus marks (who
// and when, as $set/$inc/$unset), and its partner delivery restarted. One
// conditional update decides; the entry as it left is returned.
func (s *Store) newRound(ctx context.Context, outboxID, action string, allowed []string, marks bson.M) (OutboxEntry, error) {
	now := bsonTime(s.now())
	update := roundUpdate(now, marks)
	var was string
	for range 2 { // again once if it entered an allowed status between the update and the read
		var e OutboxEntry
		err := s.outbox.FindOneAndUpdate(ctx, bson.M{"_id": outboxID, "status": bson.M{"$in": allowed}}, update,
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&e)
		if err = normalise(err); err == nil {
			return e, s.restartPartnerDeliveries(ctx, now, outboxID)
		}
		if !errors.Is(err, ErrNotFound) {
			return OutboxEntry{}, fmt.Errorf("store: %s outbox entry %s: %w", action, outboxID, err)
		}
		cur, err := s.GetOutboxEntry(ctx, outboxID)
		if err != nil {
			return OutboxEntry{}, err
		}
		if was = cur.Status; !slices.Contains(allowed, was) {
			break
		}
	}
	return OutboxEntry{}, &StatusConflictError{Action: action, Status: was, Allowed: allowed}
}

// roundUpdate is the update that starts a new round at now, with marks
// merged in.
func roundUpdate(now time.Time, marks bson.M) bson.M {
	set := bson.M{"status": status.OutboxPending, "attempts": 0, "next_attempt_at": now}
	update := bson.M{"$set": set}
	for op, fields := range marks {
		if op == "$set" {
			for k, v := range fields.(bson.M) {
				set[k] = v
			}
			continue
		}
		update[op] = fields
	}
	return update
}

// PurgeOutbox deletes every outbox entry (benchmarks and tests only).
func (s *Store) PurgeOutbox(ctx context.Context) error {
	_, err := s.outbox.DeleteMany(ctx, bson.M{})
	return normalise(err)
}
