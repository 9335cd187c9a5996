package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/internal/workflow/workflowstatus"
)

// WorkflowCheckpoint is a workflow's projection together with what a
// resumed run needs: the records the step at CurrentStepIndex reads.
type WorkflowCheckpoint struct {
	Workflow `bson:",inline"`
	// ResumeRecords are the records the next step reads, kept only while the
	// workflow is processing, so a retried batch resumes at that step
	// without running the finished ones again. Empty once it ended.
	ResumeRecords []JSONDoc `bson:"resumeRecords,omitempty" json:"-"`
}

// GetWorkflowCheckpoints loads workflows by workflowId with one query;
// workflows that do not exist are absent from the map.
func (s *Store) GetWorkflowCheckpoints(ctx context.Context, workflowIDs []string) (map[string]WorkflowCheckpoint, error) {
	out, err := findByIDs(ctx, s.workflows, workflowIDs, func(c WorkflowCheckpoint) string { return c.ID })
	if err != nil {
		return nil, fmt.Errorf("store: load workflows: %w", err)
	}
	return out, nil
}

// SaveWorkflowCheckpoints records the progress of many workflows with one
// unordered bulk write and returns how many it wrote.
//
// Each checkpoint sets status, currentStepIndex, stepResults, error,
// startedAt, completedAt, resumeRecords and stepAttempts. It never moves a workflow back:
// a stored workflow that already ended (completed or failed) or is further
// along (a higher currentStepIndex) is left alone, so a stale retry cannot
// undo newer progress. A workflow that does not exist yet (its producer
// crashed between storing the event and the projection) is created from the
// checkpoint.
func (s *Store) SaveWorkflowCheckpoints(ctx context.Context, cps ...WorkflowCheckpoint) (int, error) {
	now := s.now()
	// A duplicate key is an upsert that found the workflow further along:
	// nothing to write.
	return upsertForward(ctx, s.workflows, "workflow checkpoints", cps, func(cp WorkflowCheckpoint) (bson.D, bson.M, error) {
		if cp.WorkflowID == "" {
			return nil, nil, errors.New("store: workflow checkpoint needs workflowId")
		}
		return bson.D{
			{Key: "_id", Value: cp.WorkflowID},
			{Key: "status", Value: bson.M{"$in": workflowstatus.Active()}},
			{Key: "currentStepIndex", Value: bson.M{"$lte": cp.CurrentStepIndex}},
		}, checkpointUpdate(cp, now), nil
	})
}

// checkpointUpdate is the update of one checkpoint: progress in $set, the
// submission's fields only when the workflow is created.
func checkpointUpdate(cp WorkflowCheckpoint, now time.Time) bson.M {
	set := bson.M{
		"status":           cp.Status,
		"currentStepIndex": cp.CurrentStepIndex,
		"stepResults":      cp.StepResults,
		"updatedAt":        now,
	}
	if cp.StepResults == nil {
		set["stepResults"] = []StepProgress{}
	}
	unset := bson.M{}
	optional := func(field string, v any, present bool) { setOrUnset(set, unset, field, v, present) }
	optional("error", cp.Error, cp.Error != nil)
	optional("completedAt", cp.CompletedAt, cp.CompletedAt != nil)
	optional("resumeRecords", cp.ResumeRecords, len(cp.ResumeRecords) > 0 && cp.Status == workflowstatus.Processing)
	optional("stepAttempts", cp.StepAttempts, cp.StepAttempts > 0)
	if cp.StartedAt != nil {
		set["startedAt"] = bsonTime(*cp.StartedAt)
	}
	if cp.CompletedAt != nil {
		set["completedAt"] = bsonTime(*cp.CompletedAt)
	}

	onInsert := bson.M{
		"workflowId": cp.WorkflowID,
		"name":       cp.Name,
		"steps":      cp.Steps,
		"priority":   cp.Priority,
		"eventId":    cp.EventID,
		"createdAt":  bsonTime(cp.CreatedAt),
	}
	if len(cp.Input) > 0 {
		onInsert["input"] = cp.Input
	}
	setOrigin(onInsert, cp.CorrelationID, cp.WebhookEventID, cp.PartnerID)
	update := bson.M{"$set": set, "$setOnInsert": onInsert}
	if len(unset) > 0 {
		update["$unset"] = unset
	}
	return update
}
