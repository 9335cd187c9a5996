package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	mongoopts "go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// openJournal opens an embedded engine on a journal in dir, as the local
// stack does; the engine is closed at the end of the test, the journal is
// not (closing it is what a crash skips).
func openJournal(t *testing.T, dir string, compactBytes int64) (lungo.IDatabase, *JournalFileStore) {
	t.Helper()
	j, err := NewJournalFileStore(filepath.Join(dir, storeFileName), 0o600, compactBytes)
	require.NoError(t, err)
	client, engine, err := lungo.Open(context.Background(), store.EmbeddedOptions(j))
	require.NoError(t, err)
	t.Cleanup(engine.Close)
	return client.Database("streamops"), j
}

// contents is every namespace's documents as sorted extended JSON, plus
// its index names: what a reader of the store can tell apart.
func contents(t *testing.T, c *lungo.Catalog) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for h, ns := range c.Namespaces {
		if h == lungo.Oplog {
			continue
		}
		var docs []string
		for _, d := range ns.Documents.List() {
			b, err := bson.MarshalExtJSON(d, true, false)
			require.NoError(t, err)
			docs = append(docs, string(b))
		}
		for name := range ns.Indexes {
			docs = append(docs, "index "+name)
		}
		sort.Strings(docs)
		out[h.String()] = docs
	}
	return out
}

// reload is what the next start after a crash sees.
func reload(t *testing.T, dir string) map[string][]string {
	t.Helper()
	j, err := NewJournalFileStore(filepath.Join(dir, storeFileName), 0o600, 0)
	require.NoError(t, err)
	c, err := j.Load()
	require.NoError(t, err)
	require.NoError(t, j.Close())
	return contents(t, c)
}

// journalChanges are the kinds of change a commit can make; each must be
// on disk when the commit returns.
var journalChanges = []struct {
	name   string
	change func(ctx context.Context, db lungo.IDatabase) error
}{
	{"insert", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("events").InsertOne(ctx, bson.M{"_id": "e-new", "n": 1})
		return err
	}},
	{"insert many", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("events").InsertMany(ctx, []any{bson.M{"_id": "m1"}, bson.M{"_id": "m2"}})
		return err
	}},
	{"update", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("workflows").UpdateOne(ctx, bson.M{"_id": "wf-1"}, bson.M{"$set": bson.M{"status": "completed"}})
		return err
	}},
	{"update many", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("events").UpdateMany(ctx, bson.M{}, bson.M{"$set": bson.M{"published": true}})
		return err
	}},
	{"replace", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("workflows").ReplaceOne(ctx, bson.M{"_id": "wf-2"}, bson.M{"status": "failed"})
		return err
	}},
	{"upsert", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("tasks").UpdateOne(ctx, bson.M{"_id": "task-9"}, bson.M{"$set": bson.M{"s": 1}},
			mongoopts.Update().SetUpsert(true))
		return err
	}},
	{"delete", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("events").DeleteOne(ctx, bson.M{"_id": "e-0"})
		return err
	}},
	{"delete then insert the same id", func(ctx context.Context, db lungo.IDatabase) error {
		if _, err := db.Collection("events").DeleteOne(ctx, bson.M{"_id": "e-1"}); err != nil {
			return err
		}
		_, err := db.Collection("events").InsertOne(ctx, bson.M{"_id": "e-1", "again": true})
		return err
	}},
	{"index", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("events").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "n", Value: 1}},
			Options: mongoopts.Index().SetName("n_asc")})
		return err
	}},
	{"drop collection", func(ctx context.Context, db lungo.IDatabase) error {
		return db.Collection("tasks").Drop(ctx)
	}},
	{"new collection", func(ctx context.Context, db lungo.IDatabase) error {
		_, err := db.Collection("replay_sessions").InsertOne(ctx, bson.M{"_id": "r-1"})
		return err
	}},
}

// seedJournal stores what the changes change.
func seedJournal(t *testing.T, db lungo.IDatabase) {
	t.Helper()
	ctx := context.Background()
	for i := range 3 {
		_, err := db.Collection("events").InsertOne(ctx, bson.M{"_id": fmt.Sprintf("e-%d", i), "n": 100 + i})
		require.NoError(t, err)
	}
	_, err := db.Collection("workflows").InsertMany(ctx, []any{bson.M{"_id": "wf-1", "status": "pending"},
		bson.M{"_id": "wf-2", "status": "processing"}})
	require.NoError(t, err)
	_, err = db.Collection("tasks").InsertOne(ctx, bson.M{"_id": "task-1"})
	require.NoError(t, err)
}

func TestJournalStoreKeepsEveryCommitWithoutClose(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	for _, tc := range journalChanges {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db, j := openJournal(t, dir, 0)
			seedJournal(t, db)
			require.NoError(t, tc.change(context.Background(), db))
			want := contents(t, j.prev)
			// A crash now: the journal is never closed, nothing is compacted.
			assert.Equal(t, want, reload(t, dir))
		})
	}
}

func TestJournalStoreAllChangesInOneRunSurviveACrashAndACleanStop(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	for _, clean := range []bool{false, true} {
		t.Run(fmt.Sprintf("clean=%v", clean), func(t *testing.T) {
			dir := t.TempDir()
			db, j := openJournal(t, dir, 0)
			seedJournal(t, db)
			for _, tc := range journalChanges {
				require.NoError(t, tc.change(context.Background(), db), tc.name)
			}
			want := contents(t, j.prev)
			if clean {
				require.NoError(t, j.Close())
				_, err := os.Stat(j.journalPath(j.gen))
				assert.ErrorIs(t, err, os.ErrNotExist, "a clean stop leaves only the snapshot")
			}
			assert.Equal(t, want, reload(t, dir))
			assert.Equal(t, want, reload(t, dir), "loading twice gives the same")
		})
	}
}

func TestJournalStoreDropsARecordTornByACrash(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	for _, torn := range []struct {
		name string
		tail []byte
	}{
		{"header cut short", []byte{0x20, 0}},
		{"body cut short", []byte{0xff, 0, 0, 0, 1, 2, 3, 4, 5}},
		{"bad checksum", []byte{5, 0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0}},
	} {
		t.Run(torn.name, func(t *testing.T) {
			dir := t.TempDir()
			db, j := openJournal(t, dir, 0)
			seedJournal(t, db)
			want := contents(t, j.prev)
			f, err := os.OpenFile(j.journalPath(j.gen), os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.Write(torn.tail)
			require.NoError(t, err)
			require.NoError(t, f.Close())
			assert.Equal(t, want, reload(t, dir))
		})
	}
}

func TestJournalStoreCompactsWhileCommitsGoOn(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	dir := t.TempDir()
	db, j := openJournal(t, dir, 1) // compact whenever the journal outgrows the snapshot
	ctx := context.Background()
	var seen bool
	for i := range 300 {
		_, err := db.Collection("events").InsertOne(ctx, bson.M{"_id": fmt.Sprintf("e-%d", i), "pad": string(make([]byte, 512))})
		require.NoError(t, err)
		seen = seen || j.Compacting()
		if i%3 == 0 {
			_, err = db.Collection("events").UpdateOne(ctx, bson.M{"_id": fmt.Sprintf("e-%d", i/2)}, bson.M{"$inc": bson.M{"n": 1}})
			require.NoError(t, err)
		}
	}
	j.compacts.Wait()
	assert.True(t, seen, "Compacting reports a compaction under way")
	assert.False(t, j.Compacting(), "and none once they ended")
	want := contents(t, j.prev)
	assert.Greater(t, j.Snapshots(), int64(1), "the journal was folded into the snapshot more than once")
	gens, err := j.generations()
	require.NoError(t, err)
	assert.Len(t, gens, 1, "compacted generations are removed")
	assert.Equal(t, want, reload(t, dir))
}

func TestJournalStoreFailedAppendFailsTheCommitAndIsRolledBack(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	dir := t.TempDir()
	db, j := openJournal(t, dir, 0)
	seedJournal(t, db)
	ctx := context.Background()
	good := j.file
	ro, err := os.Open(j.journalPath(j.gen)) // a descriptor that cannot write: appends fail
	require.NoError(t, err)
	j.mu.Lock()
	j.file = ro
	j.mu.Unlock()
	_, err = db.Collection("events").InsertOne(ctx, bson.M{"_id": "lost"})
	require.Error(t, err, "a commit that is not on disk is not acknowledged")

	j.mu.Lock()
	j.file = good
	j.mu.Unlock()
	require.NoError(t, ro.Close())
	_, err = db.Collection("events").InsertOne(ctx, bson.M{"_id": "kept"})
	require.NoError(t, err)
	got := reload(t, dir)
	assert.Equal(t, contents(t, j.prev), got)
	assert.NotContains(t, fmt.Sprint(got["streamops.events"]), `"lost"`)
	assert.Contains(t, fmt.Sprint(got["streamops.events"]), `"kept"`)
}

func TestJournalDiffFindsEveryChangedDocument(t *testing.T) {
	doc := func(id string, v int) bsonkit.Doc { return &bson.D{{Key: "_id", Value: id}, {Key: "v", Value: v}} }
	a, b, c := doc("a", 1), doc("b", 1), doc("c", 1)
	b2, b3, d, a2 := doc("b", 2), doc("b", 3), doc("d", 1), doc("a", 2)
	tests := []struct {
		name      string
		change    func(s *bsonkit.Set)
		puts, del []string
	}{
		{"unchanged", func(*bsonkit.Set) {}, nil, nil},
		{"insert", func(s *bsonkit.Set) { s.Add(d) }, []string{"d"}, nil},
		{"update in place", func(s *bsonkit.Set) { s.Replace(b, b2) }, []string{"b"}, nil},
		{"updated twice: the last one", func(s *bsonkit.Set) { s.Replace(b, b2); s.Replace(b2, b3) }, []string{"b"}, nil},
		{"delete", func(s *bsonkit.Set) { s.Remove(a) }, nil, []string{"a"}},
		{"delete, update and insert", func(s *bsonkit.Set) { s.Remove(a); s.Replace(b, b2); s.Add(d); s.Remove(c) },
			[]string{"b", "d"}, []string{"a", "c"}},
		{"deleted and inserted again", func(s *bsonkit.Set) { s.Remove(a); s.Add(a2) }, []string{"a"}, nil},
		{"inserted and deleted", func(s *bsonkit.Set) { s.Add(d); s.Remove(d) }, nil, []string{"d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := &mongokit.Collection{Documents: bsonkit.NewSet(bsonkit.List{a, b, c}), Indexes: map[string]*mongokit.Index{}}
			next := old.Clone()
			tc.change(next.Documents)
			h := lungo.Handle{"db", "c"}
			prev, cat := lungo.NewCatalog(), lungo.NewCatalog()
			prev.Namespaces[h], cat.Namespaces[h] = old, next
			rec, err := diffCatalogs(prev, cat)
			require.NoError(t, err)
			puts, del := journalIDs(rec)
			assert.ElementsMatch(t, tc.puts, puts)
			assert.ElementsMatch(t, tc.del, del)
		})
	}
	t.Run("dropped and made again in one commit", func(t *testing.T) {
		h := lungo.Handle{"db", "c"}
		prev, cat := lungo.NewCatalog(), lungo.NewCatalog()
		prev.Namespaces[h] = &mongokit.Collection{Documents: bsonkit.NewSet(bsonkit.List{a, b}), Indexes: map[string]*mongokit.Index{}}
		cat.Namespaces[h] = mongokit.NewCollection(false)
		cat.Namespaces[h].Documents.Add(c)
		rec, err := diffCatalogs(prev, cat)
		require.NoError(t, err)
		require.NotEmpty(t, rec.Ops)
		assert.True(t, rec.Ops[0].Drop, "the old namespace goes first")
		puts, del := journalIDs(rec)
		assert.Equal(t, []string{"c"}, puts)
		assert.Empty(t, del)
	})
}

// journalIDs lists the _ids a record puts and deletes.
func journalIDs(rec journalRecord) (puts, del []string) {
	for _, op := range rec.Ops {
		if op.Put != nil {
			puts = append(puts, bsonkit.Get(op.Put, "_id").(string))
		}
		if op.Delete != nil {
			del = append(del, bsonkit.Get(op.Delete, "_id").(string))
		}
	}
	return puts, del
}

func TestJournalLeftByACrashIsFoldedForTheBackgroundWriter(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	dir := t.TempDir()
	db, j := openJournal(t, dir, 0)
	seedJournal(t, db)
	want := contents(t, j.prev)
	// A crash, then a start with STREAMOPS_STORE_FLUSH_INTERVAL > 0, whose
	// store reads only the snapshot.
	require.NoError(t, FoldJournal(filepath.Join(dir, storeFileName), 0o600))
	c, err := lungo.NewFileStore(filepath.Join(dir, storeFileName), 0).Load()
	require.NoError(t, err)
	assert.Equal(t, want, contents(t, c))
	require.NoError(t, FoldJournal(filepath.Join(dir, storeFileName), 0o600), "nothing left to fold")
}
