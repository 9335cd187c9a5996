package store

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
)

// CollWorkflowRecords holds the records workflows' store steps write.
const CollWorkflowRecords = "workflow_records"

// WorkflowRecord is one record a workflow's store step wrote. Records of
// every workflow share one collection, told apart by Dataset, so a
// submission can name where its records go without ever naming a
// collection of StreamOps itself.
type WorkflowRecord struct {
	ID          string    `bson:"_id" json:"id"`
	WorkflowID  string    `bson:"workflowId" json:"workflowId"`
	Dataset     string    `bson:"dataset" json:"dataset"`
	StepIndex   int       `bson:"stepIndex" json:"stepIndex"`
	RecordIndex int       `bson:"recordIndex" json:"recordIndex"`
	Record      JSONDoc   `bson:"record" json:"record"`
	StoredAt    time.Time `bson:"storedAt" json:"storedAt"`
}

// WorkflowRecordID is the deterministic id of record recordIndex written by
// step stepIndex of a workflow: a step that runs again writes the same ids.
func WorkflowRecordID(workflowID string, stepIndex, recordIndex int) string {
	return events.DeriveID("", "workflow_record", workflowID, strconv.Itoa(stepIndex), strconv.Itoa(recordIndex))
}

// InsertWorkflowRecords stores records with one unordered bulk insert;
// ids (when empty) and storedAt are filled. Records stored before are
// reported in Duplicates and left as they were.
func (s *Store) InsertWorkflowRecords(ctx context.Context, recs ...WorkflowRecord) (InsertResult, error) {
	now := s.now()
	// In chunks on the embedded engine: there one bulk write is one commit,
	// and every other write waits for it; thousands of records in one
	// commit held webhooks for seconds. A MongoDB server takes them in
	// one command (a 1,000-workflow batch: 1 command instead of 32).
	perWrite := inOneWrite
	if s.engine == EngineEmbedded {
		perWrite = workflowRecordsPerWrite
	}
	return insertAll(ctx, s.countedCollection(CollWorkflowRecords), "workflow records", perWrite, recs, func(r WorkflowRecord) (string, any, error) {
		if r.WorkflowID == "" {
			return "", nil, errors.New("store: workflow record needs workflowId")
		}
		if r.ID == "" {
			r.ID = WorkflowRecordID(r.WorkflowID, r.StepIndex, r.RecordIndex)
		}
		if r.StoredAt.IsZero() {
			r.StoredAt = now
		}
		r.StoredAt = bsonTime(r.StoredAt)
		return r.ID, r, nil
	})
}

// workflowRecordsPerWrite bounds one bulk write of workflow records on the
// embedded engine, so a workflow that stores thousands of records never
// holds its single commit for long.
const workflowRecordsPerWrite = 64

// WorkflowRecords returns the records a workflow stored, in step and record
// order.
func (s *Store) WorkflowRecords(ctx context.Context, workflowID string) ([]WorkflowRecord, error) {
	return findAll[WorkflowRecord](ctx, s.countedCollection(CollWorkflowRecords), bson.M{"workflowId": workflowID},
		options.Find().SetSort(bson.D{{Key: "stepIndex", Value: 1}, {Key: "recordIndex", Value: 1}}))
}
