package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestWritesThatListNoIDsChangeABacklogInBatches: every write of many
// documents whose filter lists no ids (a lapsed lease, a deleted
// partner's waiting deliveries, an earlier version's documents) changes a
// backlog larger than one batch in full, a command of at most a batch at
// a time, so none of them is one unbounded command that times out on
// every run. Five documents in batches of two: three finds and three
// updates each, and the documents the write must leave alone are left.
func TestWritesThatListNoIDsChangeABacklogInBatches(t *testing.T) {
	const backlog, batch = 5, 2
	clock := storetest.NewClock()
	now := clock.Now()
	past, later := now.Add(-time.Hour), now.Add(time.Hour)
	docs := func(prefix string, doc func(i int) bson.M) []any {
		out := make([]any, backlog)
		for i := range out {
			d := doc(i)
			d["_id"] = fmt.Sprint(prefix, i)
			out[i] = d
		}
		return out
	}
	for _, tc := range []struct {
		name string
		coll string
		// seed is the backlog; spare are documents the write must not change.
		seed, spare []any
		write       func(context.Context, *store.Store) (int64, error)
		// commands are those of the write, its batches' finds and updates.
		commands int64
		changed  bson.M
	}{
		{"ReclaimExpiredLeases", store.CollOutbox,
			docs("lapsed-", func(int) bson.M { return bson.M{"status": status.OutboxProcessing, "lease_expires_at": past} }),
			docs("leased-", func(int) bson.M { return bson.M{"status": status.OutboxProcessing, "lease_expires_at": later} }),
			func(ctx context.Context, s *store.Store) (int64, error) {
				n, err := s.ReclaimExpiredLeases(ctx, now)
				return int64(n), err
			}, 6 + 2, // and a find for each kind of partner claim, none lapsed
			bson.M{"status": status.OutboxFailed}},
		{"ReleaseExpiredPartnerClaims", store.CollPartnerEvents,
			docs("claim-", func(int) bson.M {
				return bson.M{"event_status": status.PartnerProcessing, "event_direction": status.DirectionOut, "processing_until": past}
			}),
			docs("sending-", func(int) bson.M {
				return bson.M{"event_status": status.PartnerProcessing, "event_direction": status.DirectionOut, "processing_until": later}
			}),
			func(ctx context.Context, s *store.Store) (int64, error) {
				n, err := s.ReleaseExpiredPartnerClaims(ctx, now)
				return int64(n), err
			}, 1 + 6, // the attempted ones' find, then the unattempted ones' batches
			bson.M{"event_status": status.PartnerPending}},
		{"CancelPartnerOutbox", store.CollOutbox,
			docs("waiting-", func(i int) bson.M {
				return bson.M{"target_provider": "acme", "status": []string{status.OutboxPending, status.OutboxFailed}[i%2]}
			}),
			docs("other-", func(int) bson.M { return bson.M{"target_provider": "globex", "status": status.OutboxPending} }),
			func(ctx context.Context, s *store.Store) (int64, error) {
				n, err := s.CancelPartnerOutbox(ctx, "acme", "cancelled: partner deleted")
				return int64(n), err
			}, 6,
			bson.M{"status": status.OutboxDeadLetter, "last_error": "cancelled: partner deleted"}},
		{"BackfillRetention, events", store.CollEvents,
			docs("evt-", func(i int) bson.M {
				return bson.M{"event_id": fmt.Sprint("evt-", i), "stored_at": now, "ttl_expires_at": later}
			}),
			docs("archived-", func(i int) bson.M {
				return bson.M{"event_id": fmt.Sprint("archived-", i), "stored_at": now, "ttl_expires_at": later, "archived_at": past}
			}),
			func(ctx context.Context, s *store.Store) (int64, error) {
				got, err := s.BackfillRetention(ctx)
				return got.EventsHeld, err
			}, 6 + 2, // and one find each for webhook rows and tasks, none to change
			bson.M{"ttl_expires_at": bson.M{"$exists": false}}},
		{"BackfillRetention, webhook rows", store.CollWebhookEvents,
			docs("wh-old-", func(i int) bson.M {
				return bson.M{"provider": "stripe", "provider_event_id": fmt.Sprint("old-", i), "received_at": now.Add(-31 * 24 * time.Hour)}
			}),
			docs("wh-young-", func(i int) bson.M {
				return bson.M{"provider": "stripe", "provider_event_id": fmt.Sprint("young-", i), "received_at": past}
			}),
			func(ctx context.Context, s *store.Store) (int64, error) {
				got, err := s.BackfillRetention(ctx)
				return got.WebhookEventsExpired, err
			}, 6 + 2,
			bson.M{"expire_at": now}},
		{"BackfillRetention, tasks", store.CollTasks,
			docs("task-done-", func(i int) bson.M {
				return bson.M{"taskId": fmt.Sprint("task-done-", i), "status": []string{status.TaskCompleted, status.TaskDeadLetter}[i%2]}
			}),
			docs("task-retrying-", func(i int) bson.M { return bson.M{"taskId": fmt.Sprint("task-retrying-", i), "status": "failed"} }),
			func(ctx context.Context, s *store.Store) (int64, error) {
				got, err := s.BackfillRetention(ctx)
				return got.TasksEnded, err
			}, 6 + 2,
			bson.M{"endedAt": now}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := storetest.Open(t, store.Config{Now: clock.Now, WebhookEventTTL: 30 * 24 * time.Hour})
			store.SetUpdateBatch(t, batch)
			_, err := s.Collection(tc.coll).InsertMany(ctx, append(append([]any{}, tc.seed...), tc.spare...))
			require.NoError(t, err)

			before := s.Commands()
			n, err := tc.write(ctx, s)
			require.NoError(t, err)
			assert.EqualValues(t, backlog, n, "the whole backlog, past the first batch")
			assert.Equal(t, tc.commands, s.Commands()-before, "a find and an update of at most %d documents per batch", batch)

			for _, set := range []struct {
				docs []any
				want int64
			}{{tc.seed, backlog}, {tc.spare, 0}} {
				ids := make([]string, len(set.docs))
				for i, d := range set.docs {
					ids[i] = d.(bson.M)["_id"].(string)
				}
				f := bson.M{"_id": bson.M{"$in": ids}}
				for k, v := range tc.changed {
					f[k] = v
				}
				got, err := s.Collection(tc.coll).CountDocuments(ctx, f)
				require.NoError(t, err)
				assert.Equal(t, set.want, got, "documents of %v changed", ids)
			}
		})
	}
}
