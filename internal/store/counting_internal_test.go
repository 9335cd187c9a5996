package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/bson"
)

// A multi-document write's timeout grows with the documents its filter
// lists, as a bulk write's does with its operations: every $in form the
// store writes is counted, and a filter that lists none adds nothing.
func TestAMultiDocumentWriteCountsTheDocumentsItsFilterLists(t *testing.T) {
	ids := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name   string
		filter any
		want   int
	}{
		{"bson.M, _id $in []string (MarkPublished)", bson.M{"_id": bson.M{"$in": ids}}, 3},
		{"bson.D, pending first (MarkPublished)", bson.D{{Key: "publish_pending", Value: true}, {Key: "_id", Value: bson.M{"$in": ids}}}, 3},
		{"an $in on another field (restartPartnerDeliveries)", bson.M{"outbox_id": bson.M{"$in": bson.A{"x", "y"}}, "event_direction": "OUT"}, 2},
		{"the longest of two lists (a requeue: ids and statuses)", bson.M{"_id": bson.M{"$in": ids}, "status": bson.M{"$in": []string{"failed"}}}, 3},
		{"a plain map", map[string]any{"_id": map[string]any{"$in": []any{1, 2, 3, 4}}}, 4},
		{"the condition as bson.D", bson.M{"_id": bson.D{{Key: "$in", Value: ids}}}, 3},
		{"an empty list", bson.M{"_id": bson.M{"$in": []string{}}}, 0},
		{"no list (ReclaimExpiredLeases)", bson.M{"status": "processing", "lease_expires_at": bson.M{"$lte": 1}}, 0},
		{"an empty filter", bson.M{}, 0},
		{"not a document", "x", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, listedDocuments(tc.filter))
		})
	}
}
