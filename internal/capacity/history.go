package capacity

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// ShardIndexRAM is the index RAM the model gives one shard: WiredTiger's
// default cache, half of (RAM − 1 GB), on a 256 GB instance, all of it
// for indexes (an assumption: the documents' working set needs its own
// share, so it is a lower bound on shards).
const ShardIndexRAM = 127.5e9

// nearDuplicates are seed 001's indexes another index of the list
// already serves: idx_events_agg_ts is idx_aggregate_ts ascending,
// aggregate_id_1 the prefix of both, idx_events_type_ts_asc is
// idx_event_type_ts ascending, timestamp_1 orders what idx_stored_at
// nearly does.
var nearDuplicates = []string{"idx_events_agg_ts", "aggregate_id_1", "idx_events_type_ts_asc", "timestamp_1"}

// HistoryResults are the history section's headline figures.
type HistoryResults struct {
	// Events is the events the TTL keeps at the target.
	Events float64
	// IndexBytes is their index bytes, UniqueIndexBytes those of _id_
	// and event_id_1.
	IndexBytes, UniqueIndexBytes float64
	// Shards is how many shards hold IndexBytes in ShardIndexRAM each.
	Shards int
	// TTLNeeded and TTLMeasured are TTL deletions per second: what the
	// target stores (each event is deleted once its TTL has passed) and
	// what the measured engine did.
	TTLNeeded, TTLMeasured float64
	// TTLDefaultCeiling is the most a TTL index loses a second at the
	// default sweep, one batch a sweep.
	TTLDefaultCeiling float64
}

// history sizes the events history at the target's events/s: its index
// bytes and RAM, the TTL deletions it needs against those measured, and
// the archive's bytes.
func history(c Constants, d Design, eventsPerSecond float64) (Section, HistoryResults) {
	h := c.History
	ttlDays := d.EventTTL.Hours() / 24
	archiveDays := d.ArchiveRetention.Hours() / 24
	perDay := eventsPerSecond * 86400
	var r HistoryResults
	r.Events = perDay * ttlDays
	million := r.Events / 1e6
	r.IndexBytes = h.IndexBytes.Value * million
	r.UniqueIndexBytes = h.UniqueIndexBytes.Value * million
	r.Shards = int(math.Ceil(r.IndexBytes/ShardIndexRAM - 1e-9))
	r.TTLNeeded = eventsPerSecond
	r.TTLMeasured = h.TTLDeletionRate.Value
	r.TTLDefaultCeiling = h.TTLSweepBatch.Value / d.TTLSweep.Seconds()
	archived := perDay * archiveDays
	n := func(k Constant) string { return quantity(k.Value, k.Unit) }
	src := func(name string) string { return "history." + name + " (make history)" }

	var largest []string
	var dup float64
	for _, ix := range h.Indexes {
		largest = append(largest, fmt.Sprintf("%s %s (%.0f %%)", ix.Name, size(ix.Bytes), 100*ix.Bytes/h.IndexBytes.Value))
		if slices.Contains(nearDuplicates, ix.Name) {
			dup += ix.Bytes
		}
	}
	// A measured rate at the batch a sweep is the cap, not the engine.
	capped := ""
	if r.TTLMeasured >= 0.9*h.TTLSweepBatch.Value/h.TTLSweep.Value {
		capped = fmt.Sprintf(" The measured rate is that cap at a %s s sweep: each sweep's batch was gone within it, so the engine's own delete speed is above it and was not reached.", num(h.TTLSweep.Value))
	}
	s := Section{Title: "The history at a billion documents", Lines: []Line{
		{"events under the TTL", r.Events, "events", fmt.Sprintf("%s events/s × 86,400 s × %s days", num(eventsPerSecond), num(ttlDays)), "the writes section; store.DefaultRetention"},
		{"data per million events", h.DataBytes.Value, "bytes", "collStats storageSize ÷ events × 10⁶ (the table's pages; its size is an estimate on DocumentDB)", src("data_bytes")},
		{"index bytes per million events", h.IndexBytes.Value, "bytes", fmt.Sprintf("collStats totalIndexSize ÷ events × 10⁶, %d indexes", d.EventsIndexes), src("index_bytes")},
		{"index bytes per million events, once published", h.IndexBytesPublished.Value, "bytes", "the same after MarkPublished (PostgreSQL keeps the old row version's entries until a vacuum)", src("index_bytes_published")},
		{"index bytes at a billion events", h.IndexBytes.Value * 1000, "bytes", fmt.Sprintf("%s × 1,000", n(h.IndexBytes)), src("index_bytes")},
		{"index bytes at the target", r.IndexBytes, "bytes", fmt.Sprintf("%s × %s million events", n(h.IndexBytes), num(million)), src("index_bytes")},
		{"of which _id_ and event_id_1", r.UniqueIndexBytes, "bytes", fmt.Sprintf("%s × %s million events", n(h.UniqueIndexBytes), num(million)), src("unique_index_bytes") + "; random keys, so every page is touched: wholly in RAM"},
		{"near-duplicate indexes per million events", dup, "bytes", fmt.Sprintf("%s: %.0f %% of the indexes", strings.Join(nearDuplicates, " + "), 100*dup/h.IndexBytes.Value), "history.indexes"},
		{"data at the target", h.DataBytes.Value * million, "bytes", fmt.Sprintf("%s × %s million events", n(h.DataBytes), num(million)), src("data_bytes")},
		{"shards to keep the indexes in RAM", float64(r.Shards), "shards", fmt.Sprintf("⌈%s ÷ %s⌉", size(r.IndexBytes), size(ShardIndexRAM)), "assumption: capacity.ShardIndexRAM, a 256 GB instance's default WiredTiger cache, all of it for indexes"},
		{"TTL deletions needed", r.TTLNeeded, "deletions/s", fmt.Sprintf("%s events/s, each deleted once archived", num(eventsPerSecond)), "steady state: what is stored a second is deleted a second, 90 days later"},
		{"TTL deletions measured", r.TTLMeasured, "deletions/s", fmt.Sprintf("archived events deleted ÷ seconds, a sweep every %s s", num(h.TTLSweep.Value)), src("ttl_deletion_rate")},
		{"TTL deletions at the default sweep, at most", r.TTLDefaultCeiling, "deletions/s", fmt.Sprintf("%s a sweep ÷ %s s", num(h.TTLSweepBatch.Value), num(d.TTLSweep.Seconds())), src("ttl_sweep_batch") + " (DocumentDB's maxTTLDeleteBatchSize); MongoDB's and DocumentDB's sweep: 60 s"},
		{"TTL deletions needed ÷ measured", r.TTLNeeded / r.TTLMeasured, "×", fmt.Sprintf("%s ÷ %s", num(r.TTLNeeded), num(r.TTLMeasured)), ""},
		{"TTL deletions needed ÷ the default sweep's", r.TTLNeeded / r.TTLDefaultCeiling, "×", fmt.Sprintf("%s ÷ %s", num(r.TTLNeeded), num(r.TTLDefaultCeiling)), ""},
		{"archiver copies needed", eventsPerSecond, "events/s", "every event is copied to events_archive before it expires", "docs/reliability.md, Retention"},
		{"archiver copies measured", h.ArchiveRate.Value, "events/s", "ArchiveDue in batches of 500, as the archiver", src("archive_rate")},
		{"events_archive at the target", h.ArchiveBytes.Value * archived / 1e6, "bytes", fmt.Sprintf("%s × %s million events (%s days)", n(h.ArchiveBytes), num(archived/1e6), num(archiveDays)), src("archive_bytes") + "; store.DefaultArchiveRetention"},
		{"one day's events, bucketed", perDay, "events", fmt.Sprintf("%s events/s × 86,400 s: one collection dropped a day instead", num(eventsPerSecond)), "the alternative to TTL deletions"},
	}}

	s.Notes = []string{
		fmt.Sprintf("Measured by `%s` on %s: %s workflow lifecycle events (webhook.received, workflow.created, processing, three step.completed, completed, with the metadata the functions set) in `events` with every index of store.Indexes; collStats before they are marked published. Each index a million events, largest first: %s.",
			h.Command, h.DataBytes.Date, num(h.Events), strings.Join(largest, ", ")),
		fmt.Sprintf("**Shard key: `{aggregate_id: 1, timestamp: 1}`.** Seed 001's reads are by aggregate (idx_aggregate_ts, idx_events_agg_ts: a workflow's history, the replay of one), by type and time (idx_event_type_ts) and by user (idx_meta_user_ts); the writes are %s events/s. aggregate_id is a workflow's or task's random id and the Kafka partition key, so a key led by it spreads the inserts over every shard and sends a by-aggregate read to one; timestamp after it lets a busy aggregate (a partner's operational events, aggregate_id = partnerId) split into chunks by time. A key led by timestamp would put every insert on the last chunk, one shard; hashed aggregate_id spreads as well but cannot split one aggregate and serves no range. By type and time and by user become scatter-gather reads, each shard answering from its own idx_event_type_ts or idx_meta_user_ts: these are the admin's and the replay preview's, not the write path's. MongoDB allows a unique index on a sharded collection only when the shard key prefixes it, and keeps _id unique per shard only, so event_id_1 becomes unique on `{aggregate_id, timestamp, event_id}` (or a plain index): an event's retried write has the same aggregate_id and timestamp, lands on the same shard and collides there on _id, its event_id, which is what idempotency needs.", num(eventsPerSecond)),
		fmt.Sprintf("**Index RAM**: at the target the TTL keeps %s events, whose indexes take %s, about %s shards of index RAM alone; the two unique indexes, whose random keys every insert probes, are %s of it. The %d indexes are what makes the history expensive: seed 001's list has near-duplicates (idx_events_agg_ts beside idx_aggregate_ts and aggregate_id_1, a prefix of both; idx_events_type_ts_asc beside idx_event_type_ts; timestamp_1 beside idx_stored_at; the line above), so dropping those no query needs is the first saving, before any sharding (a change to seed 001's list, not made here).",
			num(r.Events), size(r.IndexBytes), num(float64(r.Shards)), size(r.UniqueIndexBytes), d.EventsIndexes),
		fmt.Sprintf("**TTL deletions**: the target needs %s deletions/s; FerretDB deleted %s/s sweeping every %s s, and DocumentDB deletes at most %s documents a TTL index a sweep, so at the default 60 s sweep its ceiling is %s/s.%s MongoDB's TTL monitor is a single thread, waking every 60 s, whose every delete removes an entry from each index (%d an event); MongoDB publishes no rate for it. A TTL index is thus no plan at the target, on either engine. The alternatives: **time-bucketed collections** (`events_YYYYMMDD`, written by day, read through a view or by the store naming the days a filter spans; a day older than the TTL is archived, then dropped whole, one command instead of %s deletions), or MongoDB's **clustered collection** keyed by time with `expireAfterSeconds`, whose TTL deletes in clustered-key order without a secondary TTL index (MongoDB 5.3 and later; FerretDB cannot measure it). Buckets also make the archive a per-day copy and let the old days' indexes leave RAM.",
			num(r.TTLNeeded), num(r.TTLMeasured), num(h.TTLSweep.Value), num(h.TTLSweepBatch.Value), num(r.TTLDefaultCeiling), capped, d.EventsIndexes, num(perDay)),
		fmt.Sprintf("**What moves to S3, and how a replay reads it.** What exists: the archiver copies each event to `events_archive` (kept %s days, idx_archived_ttl; one event readable by id, store.GetArchivedEvent) before the TTL monitor deletes it, and exports (the data_export task, at most %s documents, and history.Exporter, large exports to S3 behind a presigned link) write matching events to S3 on request. A replay (history.Replayer, store.FindEvents) reads only `events`: an event past its %s-day TTL can no longer be replayed, from the archive or from S3. What would be built: the archiver writes each archived day to S3 as NDJSON objects by day and aggregate prefix (`events/dt=YYYY-MM-DD/part-N.ndjson.zst`, the archive collection then kept only until the object is written), and a replay whose filter reaches before the TTL reads those days' objects through the same filter (store.ReplayFilter applied to each line, or S3 Select / Athena for one aggregate) into the same publish path, its cursor a day and an object offset.",
			num(archiveDays), num(float64(d.ExportLimit)), num(ttlDays)),
	}
	return s, r
}
