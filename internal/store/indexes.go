package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// IndexSpec declares one index. The table below is the single source of
// truth for every index the seeds list plus the few the delivery contract
// needs; EnsureIndexes creates them and the contract suite checks them.
type IndexSpec struct {
	// Collection the index belongs to.
	Collection string
	// Name of the index. Seed 001's names are kept; seed 000's indexes carry
	// the name MongoDB would generate, so an existing deployment matches.
	Name string
	// Keys in order; 1 ascending, -1 descending, "text" for a text index.
	Keys bson.D
	// Unique enforces idempotency keys.
	Unique bool
	// Sparse indexes only documents that have the (first) key. The embedded
	// engine has no sparse indexes; there it becomes the equivalent partial
	// index {key: {$exists: true}}.
	Sparse bool
	// TTLSeconds, when not nil, makes a TTL index (0 = expire at the date in
	// the field itself).
	TTLSeconds *int32
	// Keep, when not nil, makes a retention TTL index: its
	// expireAfterSeconds is the period Keep reads from the store's
	// Config (see Retention), and a Permanent period builds no index.
	// The field it covers is set only when a document ends.
	Keep func(Config) time.Duration
	// Partial restricts the index to documents matching this filter.
	Partial bson.D
	// Text marks a text index. The embedded engine has none; it is skipped
	// there and SearchEvents falls back to a scan.
	Text bool
}

func asc(fields ...string) bson.D {
	d := make(bson.D, len(fields))
	for i, f := range fields {
		d[i] = bson.E{Key: f, Value: 1}
	}
	return d
}

func keys(kv ...any) bson.D {
	d := make(bson.D, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		d = append(d, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return d
}

var expireAtDate = int32(0)

// Indexes is every index StreamOps needs, per collection.
var Indexes = []IndexSpec{
	// events: seed 001 EventDocument, all of Settings.indexes plus the two
	// Indexed() fields and the unique event_id.
	{Collection: CollEvents, Name: "event_id_1", Keys: asc("event_id"), Unique: true},
	{Collection: CollEvents, Name: "timestamp_1", Keys: asc("timestamp")},
	{Collection: CollEvents, Name: "aggregate_id_1", Keys: asc("aggregate_id")},
	{Collection: CollEvents, Name: "idx_event_type_ts", Keys: keys("event_type", 1, "timestamp", -1)},
	{Collection: CollEvents, Name: "idx_aggregate_ts", Keys: keys("aggregate_id", 1, "timestamp", -1)},
	{Collection: CollEvents, Name: "idx_meta_user_ts", Keys: keys("metadata.user_id", 1, "timestamp", -1)},
	{Collection: CollEvents, Name: "idx_meta_service_ts", Keys: keys("metadata.service_name", 1, "timestamp", -1)},
	{Collection: CollEvents, Name: "idx_execution_id", Keys: asc("execution_id"), Sparse: true},
	// A trace's events (GET /api/traces/{traceId}); not in seed 001.
	{Collection: CollEvents, Name: "idx_meta_trace_ts", Keys: asc("metadata.trace_id", "timestamp"), Sparse: true},
	{Collection: CollEvents, Name: "idx_pod_name", Keys: asc("pod_name"), Sparse: true},
	{Collection: CollEvents, Name: "idx_ttl", Keys: asc("ttl_expires_at"), TTLSeconds: &expireAtDate},
	{Collection: CollEvents, Name: "idx_events_type_agg", Keys: asc("event_type", "aggregate_id")},
	{Collection: CollEvents, Name: "idx_events_agg_ts", Keys: asc("aggregate_id", "timestamp")},
	{Collection: CollEvents, Name: "idx_events_type_ts_asc", Keys: asc("event_type", "timestamp")},
	{Collection: CollEvents, Name: "idx_events_user_ts", Keys: asc("metadata.user_id", "timestamp")},
	{Collection: CollEvents, Name: "idx_events_user_type", Keys: asc("metadata.user_id", "event_type")},
	{Collection: CollEvents, Name: "idx_events_type_user_ts", Keys: keys("event_type", 1, "metadata.user_id", 1, "timestamp", -1)},
	{Collection: CollEvents, Name: "idx_text_search", Text: true, Keys: keys(
		"event_type", "text", "metadata.service_name", "text", "metadata.user_id", "text", "execution_id", "text")},
	// A partner token's scope: its events, oldest first (not in seed 001).
	{Collection: CollEvents, Name: "idx_partner_ts", Keys: asc("partner_id", "timestamp"), Sparse: true},
	// The retry-sweeper's "stored but not yet published" scan touches only
	// the few unpublished events.
	{Collection: CollEvents, Name: "idx_publish_pending", Keys: asc("publish_pending", "stored_at"),
		Partial: bson.D{{Key: "publish_pending", Value: true}}},
	// The archiver's due scan (ArchiveDue): oldest stored first.
	{Collection: CollEvents, Name: "idx_stored_at", Keys: asc("stored_at")},
	// The retry-sweeper's scan of publish ledgers left open (ReopenLedgers).
	{Collection: CollPublishLedgers, Name: "idx_stored_at", Keys: asc("stored_at")},

	{Collection: CollEventsArchive, Name: "event_id_1", Keys: asc("event_id"), Unique: true},
	{Collection: CollEventsArchive, Name: "idx_aggregate_ts", Keys: keys("aggregate_id", 1, "timestamp", -1)},
	{Collection: CollEventsArchive, Name: "timestamp_1", Keys: asc("timestamp")},
	// Retention (Config.Retention.Archive): a year by default, Permanent
	// where an audit says so.
	{Collection: CollEventsArchive, Name: "idx_archived_ttl", Keys: asc("archived_at"), Keep: keepArchive},

	// webhook_events: seed 004 UNIQUE(provider, provider_event_id) and the
	// sweeper's status scan.
	{Collection: CollWebhookEvents, Name: "uniq_provider_event", Keys: asc("provider", "provider_event_id"), Unique: true},
	{Collection: CollWebhookEvents, Name: "idx_status_received", Keys: asc("status", "received_at")},
	// Retention (seed 004 partitions by month of received_at to drop old
	// months): each row carries its expiry date, see WebhookEvent.ExpireAt.
	{Collection: CollWebhookEvents, Name: "idx_expire_at", Keys: asc("expire_at"), TTLSeconds: &expireAtDate},
	// A trace's webhook row (GET /api/traces/{traceId}), also one that
	// started no event; not in seed 004.
	{Collection: CollWebhookEvents, Name: "idx_trace_id", Keys: asc("trace_id"), Sparse: true},

	// integration_outbox: seed 004 (status, next_attempt_at) polling index,
	// and the claim token a batch claim reads back by.
	{Collection: CollOutbox, Name: "idx_status_next_attempt", Keys: asc("status", "next_attempt_at")},
	{Collection: CollOutbox, Name: "idx_claim_token", Keys: asc("claim_token"), Sparse: true},
	{Collection: CollOutbox, Name: "idx_status_lease", Keys: asc("status", "lease_expires_at")},
	// A trace's partner deliveries (GET /api/traces/{traceId}); not in
	// seed 004.
	{Collection: CollOutbox, Name: "idx_trace_id", Keys: asc("trace_id"), Sparse: true},
	// A partner's deliveries newest first (GET
	// /api/partners/{partnerId}/deliveries) and the dead letters a bulk
	// requeue counts; not in seed 004.
	{Collection: CollOutbox, Name: "idx_target_created", Keys: keys("target_provider", 1, "created_at", -1, "_id", 1)},
	// Retention: completed_at is set only when an entry is delivered
	// (and cleared by a resend), so pending, retrying and dead-lettered
	// entries are never deleted.
	{Collection: CollOutbox, Name: "idx_completed_ttl", Keys: asc("completed_at"), Keep: keepOutbox},

	// partner_events: seed 000's four indexes, with MongoDB's default names.
	{Collection: CollPartnerEvents, Name: "entity_metadata.partnerId_1_created_-1", Keys: keys("entity_metadata.partnerId", 1, "created", -1)},
	{Collection: CollPartnerEvents, Name: "event_status_1_event_type_1", Keys: asc("event_status", "event_type")},
	{Collection: CollPartnerEvents, Name: "expire_at_1", Keys: asc("expire_at"), TTLSeconds: &expireAtDate},
	{Collection: CollPartnerEvents, Name: "entity_metadata.entity_id_1_entity_metadata.entity_type_1", Keys: asc("entity_metadata.entity_id", "entity_metadata.entity_type")},

	// partners: the directory's read of every partner that exists, by
	// id. No retention rule: a partner is kept while it exists, and a
	// deleted one (deleted_at set) is kept as its history.
	{Collection: CollPartners, Name: "idx_deleted_id", Keys: asc("deleted_at", "_id")},

	// The personal-data vault: a subject's key goes when no copy of its
	// data can remain (expire_at, see PIISubject.ExpireAt); a
	// resolution's record is kept as long as the archive.
	{Collection: CollPIISubjects, Name: "idx_expire_at", Keys: asc("expire_at"), TTLSeconds: &expireAtDate},
	{Collection: CollPIISubjects, Name: "idx_anchors", Keys: asc("anchors")},
	{Collection: CollPIIResolutions, Name: "idx_subject_at", Keys: asc("subject_id", "at")},
	{Collection: CollPIIResolutions, Name: "idx_at_ttl", Keys: asc("at"), Keep: keepArchive},

	{Collection: CollWorkflows, Name: "idx_status_updated", Keys: asc("status", "updatedAt")},
	// Retention: completedAt is the end of a run, completed or failed; a
	// rerun clears it until the new run ends.
	{Collection: CollWorkflows, Name: "idx_completed_ttl", Keys: asc("completedAt"), Keep: keepWorkflows},
	{Collection: CollTasks, Name: "idx_status_next_retry", Keys: asc("status", "nextRetryAt")},
	// Retention: endedAt is set when a task completes or is dead-lettered.
	{Collection: CollTasks, Name: "idx_ended_ttl", Keys: asc("endedAt"), Keep: keepTasks},
	{Collection: CollReplaySessions, Name: "idx_status_created", Keys: keys("status", 1, "created_at", -1)},
	// Retention: completed_at is set when a session completes, fails or
	// is cancelled.
	{Collection: CollReplaySessions, Name: "idx_completed_ttl", Keys: asc("completed_at"), Keep: keepReplaySessions},

	// dead_letters: the admin API lists open ones newest first and finds
	// them by record position or aggregate.
	{Collection: CollDeadLetters, Name: "idx_status_received", Keys: keys("status", 1, "received_at", -1)},
	{Collection: CollDeadLetters, Name: "idx_topic_partition_offset", Keys: asc("topic", "partition", "offset")},
	{Collection: CollDeadLetters, Name: "idx_aggregate_id", Keys: asc("aggregate_id"), Sparse: true},
	// Retention: resolved_at is set when a dead letter is replayed or
	// discarded; an open one is kept.
	{Collection: CollDeadLetters, Name: "idx_resolved_ttl", Keys: asc("resolved_at"), Keep: keepDeadLetters},
	// workflow_records: a workflow's records in order, a dataset's newest.
	{Collection: CollWorkflowRecords, Name: "idx_workflow_step_record", Keys: asc("workflowId", "stepIndex", "recordIndex")},
	{Collection: CollWorkflowRecords, Name: "idx_dataset_stored", Keys: keys("dataset", 1, "storedAt", -1)},
	// Retention: as long as workflows, from when the record was stored
	// (its step completed then).
	{Collection: CollWorkflowRecords, Name: "idx_stored_ttl", Keys: asc("storedAt"), Keep: keepWorkflows},
}

// model turns a spec into the index model this engine accepts.
func (s *Store) model(spec IndexSpec) mongo.IndexModel {
	opts := options.Index().SetName(spec.Name)
	if spec.Unique {
		opts.SetUnique(true)
	}
	if spec.TTLSeconds != nil {
		opts.SetExpireAfterSeconds(*spec.TTLSeconds)
	}
	if spec.Keep != nil {
		opts.SetExpireAfterSeconds(ttlSeconds(spec.Keep(s.cfg)))
	}
	if spec.Partial != nil {
		opts.SetPartialFilterExpression(spec.Partial)
	}
	if spec.Sparse {
		if s.has.sparseIndex {
			opts.SetSparse(true)
		} else {
			opts.SetPartialFilterExpression(bson.D{{Key: spec.Keys[0].Key, Value: bson.D{{Key: "$exists", Value: true}}}})
		}
	}
	if spec.Text {
		opts.SetDefaultLanguage("english").SetLanguageOverride("none")
	}
	return mongo.IndexModel{Keys: spec.Keys, Options: opts}
}

// supported reports whether this engine builds the index: not a text
// index where it has none, nor a retention TTL index whose period is
// Permanent.
func (s *Store) supported(spec IndexSpec) bool {
	if spec.Keep != nil && spec.Keep(s.cfg) == Permanent {
		return false
	}
	return !spec.Text || s.has.textIndex
}

// EnsureIndexes creates every index of Indexes that this engine supports.
// It is idempotent: an index that already exists with the same definition is
// left alone. Open calls it once; there is no need to call it per request.
//
// The collections are done side by side: on MongoDB a cold start waits for
// one round trip rather than one per collection. The embedded engine
// commits (rewrites and syncs its file) for every index it is asked to
// create, even one it has, so there only the missing ones are asked for,
// by name: its cold start on an existing data directory then writes
// nothing.
//
// A retention TTL index (IndexSpec.Keep) whose period changed is dropped
// and built again with the new one, so the change applies to documents
// that ended before it too; one whose period became Permanent is dropped.
// On MongoDB the indexes are listed only when that may be so: when
// creating them failed (an index of that name with other options) or a
// period is Permanent.
func (s *Store) EnsureIndexes(ctx context.Context) error {
	byColl := map[string][]IndexSpec{}
	for _, spec := range Indexes {
		byColl[spec.Collection] = append(byColl[spec.Collection], spec)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(byColl))
	for coll, specs := range byColl {
		wg.Go(func() {
			if err := s.ensureIndexes(ctx, coll, specs); err != nil {
				errs <- fmt.Errorf("store: ensure indexes on %s: %w", coll, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

// ensureIndexes makes coll's indexes specs (see EnsureIndexes).
func (s *Store) ensureIndexes(ctx context.Context, coll string, specs []IndexSpec) error {
	var models []mongo.IndexModel
	var names []string
	permanent := false
	for _, spec := range specs {
		if !s.supported(spec) {
			permanent = permanent || spec.Keep != nil
			continue
		}
		models = append(models, s.model(spec))
		names = append(names, spec.Name)
	}
	view := s.client.Database(s.cfg.Database).Collection(coll).Indexes()
	// reconcile drops the stale retention indexes and leaves in models
	// those missing.
	reconcile := func() error {
		have, err := s.ListIndexes(ctx, coll)
		if err != nil {
			return err
		}
		stale := s.staleRetention(specs, have)
		var dropErr error
		for _, name := range stale {
			if _, err := view.DropOne(ctx, name); err != nil {
				dropErr = fmt.Errorf("drop %s to apply its retention: %w", name, normalise(err))
			}
		}
		if dropErr != nil {
			// Another function starting with the same retention may have
			// dropped it first: an error only if one is still there.
			if have, err = s.ListIndexes(ctx, coll); err != nil || len(s.staleRetention(specs, have)) > 0 {
				return errors.Join(dropErr, err)
			}
		}
		models = missingIndexes(models, names, have, stale)
		return nil
	}
	if s.engine == EngineEmbedded || permanent {
		if err := reconcile(); err != nil {
			return err
		}
	}
	if len(models) == 0 {
		return nil
	}
	_, err := view.CreateMany(ctx, models)
	if err != nil && s.engine == EngineMongoDB && !permanent {
		if rerr := reconcile(); rerr != nil {
			return errors.Join(err, rerr)
		}
		if len(models) == 0 {
			return nil
		}
		_, err = view.CreateMany(ctx, models)
	}
	return err
}

// staleRetention names the retention TTL indexes of specs that have
// lists with another period than the store's, or at all while the period
// is Permanent.
func (s *Store) staleRetention(specs []IndexSpec, have []IndexInfo) []string {
	var stale []string
	for _, spec := range specs {
		if spec.Keep == nil {
			continue
		}
		i := slices.IndexFunc(have, func(ix IndexInfo) bool { return ix.Name == spec.Name })
		if i < 0 {
			continue
		}
		want := spec.Keep(s.cfg)
		got := have[i].ExpireAfterSeconds
		if want == Permanent || got == nil || *got != int64(ttlSeconds(want)) {
			stale = append(stale, spec.Name)
		}
	}
	return stale
}

// missingIndexes is models (named names) without those have lists, but
// for the dropped ones.
func missingIndexes(models []mongo.IndexModel, names []string, have []IndexInfo, dropped []string) []mongo.IndexModel {
	exists := map[string]bool{}
	for _, ix := range have {
		exists[ix.Name] = !slices.Contains(dropped, ix.Name)
	}
	var out []mongo.IndexModel
	for i, m := range models {
		if !exists[names[i]] {
			out = append(out, m)
		}
	}
	return out
}

// IndexInfo is what ListIndexes reports of one index.
type IndexInfo struct {
	Name   string `bson:"name"`
	Key    bson.D `bson:"key"`
	Unique bool   `bson:"unique,omitempty"`
	Sparse bool   `bson:"sparse,omitempty"`
	// ExpireAfterSeconds is set on TTL indexes.
	ExpireAfterSeconds *int64 `bson:"expireAfterSeconds,omitempty"`
	// PartialFilterExpression is set on partial indexes.
	PartialFilterExpression bson.D `bson:"partialFilterExpression,omitempty"`
	// Weights names the fields of a text index (its Key is _fts/_ftsx).
	Weights          bson.M `bson:"weights,omitempty"`
	DefaultLanguage  string `bson:"default_language,omitempty"`
	LanguageOverride string `bson:"language_override,omitempty"`
}

// ListIndexes lists the indexes of a collection. It reads the listIndexes
// cursor directly (IndexView.ListSpecifications is not available on the
// embedded engine).
func (s *Store) ListIndexes(ctx context.Context, collection string) ([]IndexInfo, error) {
	cur, err := s.client.Database(s.cfg.Database).Collection(collection).Indexes().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: list indexes of %s: %w", collection, err)
	}
	var out []IndexInfo
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("store: list indexes of %s: %w", collection, err)
	}
	return out, nil
}

// Supported reports whether spec is built on this store's engine.
func (s *Store) Supported(spec IndexSpec) bool { return s.supported(spec) }
