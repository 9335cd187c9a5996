package store

import (
	"fmt"
	"math"
	"time"
)

// DefaultRetention is the default of every retention period but the
// archive's: 90 days (seed 001 "TTL and retention"; webhook_events keep as
// long as the events they started, and a workflow, task, delivery, dead
// letter or replay session that ended as long as the events that tell its
// story).
const DefaultRetention = 90 * 24 * time.Hour

// DefaultArchiveRetention is Retention.Archive's default: a year. Seed 001
// keeps events_archive "for permanent audit requirements", which is a
// deployment's policy, not a default: a store left running must not grow
// without bound, so the archive is finite unless a deployment says
// Permanent. A year covers an annual audit of the events that left
// events after their 90 days.
const DefaultArchiveRetention = 365 * 24 * time.Hour

// Permanent, as a retention period, keeps the documents forever: no TTL
// index is built for them (and one an earlier retention built is
// dropped at Open).
const Permanent = time.Duration(math.MaxInt64)

// MaxRetention is the longest retention period a TTL index holds
// (expireAfterSeconds is a 32-bit number of seconds, about 68 years); a
// longer one but Permanent is refused.
const MaxRetention = time.Duration(math.MaxInt32) * time.Second

// Retention is how long the store keeps documents that ended, each from
// the moment it ended: a TTL index on that moment's field, with
// expireAfterSeconds the period, deletes them. A document that has not
// ended has no such field, so no TTL index ever deletes it: pending work
// stays until it ends. A zero period is its default (DefaultRetention,
// DefaultArchiveRetention); Permanent keeps them forever. A changed period
// applies to every document, also those that ended before: EnsureIndexes
// rebuilds a TTL index whose period differs.
type Retention struct {
	// Outbox keeps an integration_outbox entry delivered (completed) for
	// this long after completed_at (env STREAMOPS_OUTBOX_TTL). A
	// dead-lettered entry waits for an operator's requeue and is kept.
	Outbox time.Duration
	// Workflows keeps a completed or failed workflow for this long after
	// its run's completedAt (env STREAMOPS_WORKFLOWS_TTL), with the
	// records its failed step read (resumeRecords, for a rerun: they live
	// in its document). workflow_records are kept as long from their
	// storedAt (a store step writes them as it completes).
	Workflows time.Duration
	// Tasks keeps a completed or dead-lettered task for this long after
	// endedAt (env STREAMOPS_TASKS_TTL).
	Tasks time.Duration
	// DeadLetters keeps a resolved (replayed or discarded) dead letter for
	// this long after resolved_at (env STREAMOPS_DEAD_LETTERS_TTL); an
	// open one is kept until someone resolves it.
	DeadLetters time.Duration
	// ReplaySessions keeps a completed, failed or cancelled replay session
	// for this long after completed_at (env STREAMOPS_REPLAY_SESSIONS_TTL).
	ReplaySessions time.Duration
	// Archive keeps an events_archive document for this long after
	// archived_at (env STREAMOPS_ARCHIVE_TTL). Default a year
	// (DefaultArchiveRetention); Permanent for seed 001's permanent audit.
	Archive time.Duration
}

func (r *Retention) setDefaults() {
	for _, d := range []*time.Duration{&r.Outbox, &r.Workflows, &r.Tasks, &r.DeadLetters, &r.ReplaySessions} {
		if *d == 0 {
			*d = DefaultRetention
		}
	}
	if r.Archive == 0 {
		r.Archive = DefaultArchiveRetention
	}
}

// validate refuses a negative period and one a TTL index cannot hold.
func (r Retention) validate() error {
	for _, d := range []struct {
		field string
		value time.Duration
	}{
		{"Outbox", r.Outbox}, {"Workflows", r.Workflows}, {"Tasks", r.Tasks},
		{"DeadLetters", r.DeadLetters}, {"ReplaySessions", r.ReplaySessions}, {"Archive", r.Archive},
	} {
		switch {
		case d.value < 0:
			return fmt.Errorf("store: Config.Retention.%s must not be negative", d.field)
		case d.value > MaxRetention && d.value != Permanent:
			return fmt.Errorf("store: Config.Retention.%s must be at most %s, or Permanent", d.field, MaxRetention)
		}
	}
	return nil
}

// The retention period each retention TTL index reads (IndexSpec.Keep).
func keepOutbox(c Config) time.Duration         { return c.Retention.Outbox }
func keepWorkflows(c Config) time.Duration      { return c.Retention.Workflows }
func keepTasks(c Config) time.Duration          { return c.Retention.Tasks }
func keepDeadLetters(c Config) time.Duration    { return c.Retention.DeadLetters }
func keepReplaySessions(c Config) time.Duration { return c.Retention.ReplaySessions }
func keepArchive(c Config) time.Duration        { return c.Retention.Archive }

// ttlSeconds is a retention period as a TTL index's expireAfterSeconds:
// whole seconds, at least 1 (0 would mean "at the field's date").
func ttlSeconds(d time.Duration) int32 {
	return int32(max(d/time.Second, 1))
}

// LongestRetention is the longest any copy of a stored datum is kept:
// the longest of the retention periods, with the archive's counted from
// when the event left events. Permanent when any is. The vault keeps a
// data subject's key this long after its last datum.
func (s *Store) LongestRetention() time.Duration {
	c := s.cfg
	if c.Retention.Archive == Permanent {
		return Permanent
	}
	longest := c.EventTTL + c.Retention.Archive
	for _, d := range []time.Duration{c.WebhookEventTTL, c.Retention.Outbox, c.Retention.Workflows, c.Retention.Tasks,
		c.Retention.DeadLetters, c.Retention.ReplaySessions} {
		if d == Permanent {
			return Permanent
		}
		longest = max(longest, d)
	}
	return longest
}
