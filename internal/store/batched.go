package store

import (
	"context"
	"maps"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// updateBatch is how many documents one command of updateMatching
// changes at most (a variable, so a test can make a backlog span
// batches).
var updateBatch = 1000

// updateMatching applies update to every document of coll that filter
// matches, in commands of at most updateBatch documents each: it finds the
// ids of the next batch, then updates those of them that still match. A
// write whose filter lists no ids would change a backlog of any size in
// one command under the flat operation timeout, and a large one would fail
// on every run (on FerretDB a cancelled update rolls back whole), so a
// lapsed lease, a partner's waiting deliveries or an earlier version's
// documents would wait for ever; a listed batch gets a bulk write's
// timeout (BulkTimeoutPerDocument), and each batch committed stays done.
// update must make a document stop matching filter. It returns how many
// documents changed, with the error that stopped it.
func updateMatching(ctx context.Context, coll lungo.ICollection, filter bson.M, update any) (int64, error) {
	var changed int64
	find := options.Find().SetLimit(int64(updateBatch)).SetProjection(bson.M{"_id": 1})
	for {
		batch, err := findAll[idOnly](ctx, coll, filter, find)
		if err != nil || len(batch) == 0 {
			return changed, err
		}
		ids := make([]string, len(batch))
		for i, d := range batch {
			ids[i] = d.ID
		}
		f := maps.Clone(filter)
		f["_id"] = bson.M{"$in": ids}
		res, err := coll.UpdateMany(ctx, f, update)
		if err != nil {
			return changed, err
		}
		changed += res.ModifiedCount
		// A short batch was the last; one that changed nothing was taken
		// by a concurrent writer, whose run goes on from here.
		if len(batch) < updateBatch || res.ModifiedCount == 0 {
			return changed, nil
		}
	}
}
