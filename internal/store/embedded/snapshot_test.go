package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo"
	mongoopts "go.mongodb.org/mongo-driver/mongo/options"
)

// catalogOf builds a catalog through the engine: fill runs against a
// database of an in-memory engine.
func catalogOf(t testing.TB, fill func(db lungo.IDatabase)) *lungo.Catalog {
	t.Helper()
	mem := lungo.NewMemoryStore()
	client, engine, err := lungo.Open(context.Background(), lungo.Options{Store: mem})
	require.NoError(t, err)
	defer engine.Close()
	fill(client.Database("streamops"))
	c, err := mem.Load()
	require.NoError(t, err)
	return c
}

// TestASnapshotReadsBackAsLungosOwnFileDoes: writeSnapshot's file loads,
// through lungo's FileStore, to the same documents and indexes as the
// file lungo writes itself, for a table of catalogs.
func TestASnapshotReadsBackAsLungosOwnFileDoes(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 12, 2, 22, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		fill func(db lungo.IDatabase)
	}{
		{"no collections", func(lungo.IDatabase) {}},
		{"an empty collection with indexes", func(db lungo.IDatabase) {
			_, err := db.Collection("empty").Indexes().CreateMany(ctx, []mongo.IndexModel{
				{Keys: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: -1}}, Options: mongoopts.Index().SetUnique(true).SetName("a_b")},
				{Keys: bson.D{{Key: "at", Value: 1}}, Options: mongoopts.Index().SetExpireAfterSeconds(3600).SetName("ttl")},
				{Keys: bson.D{{Key: "p", Value: 1}}, Options: mongoopts.Index().SetPartialFilterExpression(bson.D{{Key: "p", Value: bson.D{{Key: "$exists", Value: true}}}}).SetName("partial")},
			})
			require.NoError(t, err)
		}},
		{"documents of every kind of value", func(db lungo.IDatabase) {
			_, err := db.Collection("kinds").InsertMany(ctx, []any{
				bson.D{{Key: "_id", Value: "s"}, {Key: "n", Value: int32(1)}, {Key: "l", Value: int64(1) << 40}, {Key: "f", Value: 1.5},
					{Key: "d", Value: primitive.NewDateTimeFromTime(at)}, {Key: "b", Value: primitive.Binary{Data: []byte{0, 1, 2}}},
					{Key: "t", Value: true}, {Key: "z", Value: nil}, {Key: "oid", Value: primitive.NewObjectID()},
					{Key: "dec", Value: primitive.NewDecimal128(1, 2)}, {Key: "ts", Value: primitive.Timestamp{T: 1, I: 2}}},
				bson.D{{Key: "_id", Value: "nested"}, {Key: "doc", Value: bson.D{{Key: "a", Value: bson.A{1, "two", bson.D{{Key: "three", Value: 3}}, bson.A{}}}}}},
				bson.D{{Key: "_id", Value: "unicode ü 🚀"}, {Key: "empty", Value: bson.D{}}},
			})
			require.NoError(t, err)
		}},
		{"several collections, many documents", func(db lungo.IDatabase) {
			for c := range 3 {
				docs := make([]any, 0, 500)
				for n := range 500 {
					docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("%d-%d", c, n)}, {Key: "payload", Value: bson.D{{Key: "n", Value: n}}}})
				}
				_, err := db.Collection(fmt.Sprint("c", c)).InsertMany(ctx, docs)
				require.NoError(t, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := catalogOf(t, tt.fill)
			dir := t.TempDir()
			ours, theirs := filepath.Join(dir, "ours"), filepath.Join(dir, "theirs")
			require.NoError(t, writeSnapshot(ours, 0o600, c, nil))
			require.NoError(t, lungo.NewFileStore(theirs, 0o600).Store(c))
			got, err := lungo.NewFileStore(ours, 0o600).Load()
			require.NoError(t, err)
			want, err := lungo.NewFileStore(theirs, 0o600).Load()
			require.NoError(t, err)
			assert.Equal(t, contents(t, want), contents(t, got))
			for h, ns := range want.Namespaces {
				require.Contains(t, got.Namespaces, h)
				assert.Equal(t, fileIndexes(ns), fileIndexes(got.Namespaces[h]), "%s: index definitions", h)
			}
			fi, err := os.Stat(ours)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
			assert.NoFileExists(t, ours+".tmp")
		})
	}
}

// BenchmarkSnapshot writes a snapshot of 20,000 event-sized documents
// with lungo's FileStore and with writeSnapshot: B/op is what each
// allocates while writing it.
func BenchmarkSnapshot(b *testing.B) {
	c := catalogOf(b, func(db lungo.IDatabase) {
		docs := make([]any, 0, 20_000)
		for _, env := range benchEvents(20_000) {
			docs = append(docs, env)
		}
		_, err := db.Collection("events").InsertMany(context.Background(), docs)
		require.NoError(b, err)
	})
	path := filepath.Join(b.TempDir(), "snapshot")
	for _, w := range []struct {
		name  string
		write func() error
	}{
		{"lungo-filestore", func() error { return lungo.NewFileStore(path, 0o600).Store(c) }},
		{"streamed", func() error { return writeSnapshot(path, 0o600, c, nil) }},
	} {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				require.NoError(b, w.write())
			}
			fi, err := os.Stat(path)
			require.NoError(b, err)
			b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
		})
	}
}

// syncRecorder is a syncFile that records how many bytes each sync
// covered.
type syncRecorder struct {
	pending int64
	synced  []int64
	failAt  int // the write (1-based) that fails; 0 never
	writes  int
}

func (r *syncRecorder) Write(p []byte) (int, error) {
	r.writes++
	if r.writes == r.failAt {
		return 0, fmt.Errorf("disk full")
	}
	r.pending += int64(len(p))
	return len(p), nil
}

func (r *syncRecorder) Sync() error {
	r.synced = append(r.synced, r.pending)
	r.pending = 0
	return nil
}

// TestASnapshotIsSyncedAsItIsWritten: the snapshot is synced every
// snapshotSyncBytes or so, so that a commit's fsync beside a compaction
// never waits behind the whole snapshot's writeback.
func TestASnapshotIsSyncedAsItIsWritten(t *testing.T) {
	cases := []struct {
		name   string
		every  int64
		writes []int
		synced []int64 // the bytes each sync covered; the rest waits for the final fsync
		failAt int
	}{
		{"less than one interval is left to the end", 100, []int{40, 50}, nil, 0},
		{"exactly one interval", 100, []int{60, 40}, []int64{100}, 0},
		{"a sync after the write that crosses the interval", 100, []int{60, 60, 60, 60}, []int64{120, 120}, 0},
		{"a write larger than the interval", 100, []int{250, 10}, []int64{250}, 0},
		{"a failed write syncs nothing more", 100, []int{60, 60, 60}, nil, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &syncRecorder{failAt: c.failAt}
			p := &pacedSyncer{f: f, every: c.every}
			var err error
			for _, n := range c.writes {
				if _, err = p.Write(make([]byte, n)); err != nil {
					break
				}
			}
			if c.failAt > 0 {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, c.synced, f.synced)
		})
	}
}
