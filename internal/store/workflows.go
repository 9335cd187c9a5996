package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
)

// Workflow is the current state of a workflow (the workflows collection, a
// projection of its events). Field names follow seed 003's payloads.
type Workflow struct {
	ID         string   `bson:"_id" json:"-"`
	WorkflowID string   `bson:"workflowId" json:"workflowId"`
	Name       string   `bson:"name" json:"name"`
	Steps      []string `bson:"steps" json:"steps"`
	Priority   string   `bson:"priority" json:"priority"`
	Input      JSONDoc  `bson:"input,omitempty" json:"input,omitempty"`
	Status     string   `bson:"status" json:"status"`
	// CurrentStepIndex is the step running or next to run.
	CurrentStepIndex int `bson:"currentStepIndex" json:"currentStepIndex"`
	// StepAttempts counts the current step's transient failures in a row
	// (the workflow-processor fails the workflow at its limit); 0 once the
	// step completes.
	StepAttempts int `bson:"stepAttempts,omitempty" json:"stepAttempts,omitempty"`
	// AttemptStepIndex and StepAttemptsStarted count how often the
	// workflow-processor started step AttemptStepIndex, recorded while a long
	// attempt runs (RecordStepAttempt), so an attempt the function's
	// timeout killed before it could checkpoint is counted too.
	AttemptStepIndex    int `bson:"attemptStepIndex,omitempty" json:"attemptStepIndex,omitempty"`
	StepAttemptsStarted int `bson:"stepAttemptsStarted,omitempty" json:"stepAttemptsStarted,omitempty"`
	// StepResults holds one entry per finished step, in order: the
	// checkpoint a retried batch resumes from.
	StepResults []StepProgress        `bson:"stepResults,omitempty" json:"stepResults,omitempty"`
	Error       *events.WorkflowError `bson:"error,omitempty" json:"error,omitempty"`
	// EventID is the workflow.created event that started it.
	EventID        string `bson:"eventId" json:"eventId"`
	CorrelationID  string `bson:"correlationId,omitempty" json:"correlationId,omitempty"`
	WebhookEventID string `bson:"webhookEventId,omitempty" json:"webhookEventId,omitempty"`
	// TraceID is the W3C trace id of the request that started it; every
	// event of it carries it as metadata.traceId, retries and reruns too.
	TraceID string `bson:"traceId,omitempty" json:"traceId,omitempty"`
	// PartnerID is the provider or partner whose webhook started it; its
	// events carry it as metadata.partnerId.
	PartnerID string `bson:"partnerId,omitempty" json:"partnerId,omitempty"`
	// UserID is the principal whose request started it (an API
	// submission, a webhook event's retry); its events carry it as
	// metadata.userId. Empty for a webhook delivery's.
	UserID         string     `bson:"userId,omitempty" json:"userId,omitempty"`
	IdempotencyKey string     `bson:"idempotencyKey,omitempty" json:"-"`
	RequestHash    string     `bson:"requestHash,omitempty" json:"-"`
	CreatedAt      time.Time  `bson:"createdAt" json:"createdAt"`
	UpdatedAt      time.Time  `bson:"updatedAt" json:"updatedAt"`
	StartedAt      *time.Time `bson:"startedAt,omitempty" json:"startedAt,omitempty"`
	CompletedAt    *time.Time `bson:"completedAt,omitempty" json:"completedAt,omitempty"`
	// Attempt is the run the workflow is on: 0 (or 1) its first, 2, 3, …
	// the runs reruns started (RerunWorkflow). StartedAt, CompletedAt
	// and Error are the current run's.
	Attempt int `bson:"attempt,omitempty" json:"attempt,omitempty"`
	// Reruns are the reruns asked for, oldest first: the newest
	// MaxWorkflowReruns of them.
	Reruns []WorkflowRerun `bson:"reruns,omitempty" json:"reruns,omitempty"`
	// RerunsDropped counts the oldest reruns no longer in Reruns.
	RerunsDropped int `bson:"rerunsDropped,omitempty" json:"rerunsDropped,omitempty"`
}

// MaxWorkflowReruns caps a workflow's Reruns, so a workflow rerun again
// and again cannot grow its document without bound; the older ones are
// counted (RerunsDropped). A request repeated with the Idempotency-Key of
// a dropped rerun starts a new one.
const MaxWorkflowReruns = 100

// WorkflowRerun is one rerun of a workflow: the run it started, from
// which step, asked by whom and when, under which Idempotency-Key.
type WorkflowRerun struct {
	Attempt       int    `bson:"attempt" json:"attempt"`
	FromStep      string `bson:"fromStep" json:"fromStep"`
	FromStepIndex int    `bson:"fromStepIndex" json:"fromStepIndex"`
	// PreviousStatus is how the run before it ended (completed, failed).
	PreviousStatus string `bson:"previousStatus" json:"previousStatus"`
	// EventID is the workflow.created that announces the rerun.
	EventID     string    `bson:"eventId" json:"eventId"`
	RequestedBy string    `bson:"requestedBy,omitempty" json:"requestedBy,omitempty"`
	RequestedAt time.Time `bson:"requestedAt" json:"requestedAt"`
	// IdempotencyKey and RequestHash let a repeated request find its
	// rerun instead of starting another.
	IdempotencyKey string `bson:"idempotencyKey,omitempty" json:"-"`
	RequestHash    string `bson:"requestHash,omitempty" json:"-"`
}

// StepProgress is one finished step of a workflow.
type StepProgress struct {
	StepName    string    `bson:"stepName" json:"stepName"`
	StepIndex   int       `bson:"stepIndex" json:"stepIndex"`
	CompletedAt time.Time `bson:"completedAt" json:"completedAt"`
	Duration    int64     `bson:"duration" json:"duration"`
	Result      JSONDoc   `bson:"result,omitempty" json:"result,omitempty"`
}

// CreateWorkflow stores a new workflow as pending. A workflow with the same
// workflowId already stored is returned with ErrDuplicate (a retried
// submission), unchanged.
func (s *Store) CreateWorkflow(ctx context.Context, wf Workflow) (Workflow, error) {
	if wf.WorkflowID == "" {
		return Workflow{}, errors.New("store: workflow needs workflowId")
	}
	now := s.now()
	wf.ID, wf.Status = wf.WorkflowID, status.WorkflowPending
	stampCreated(&wf.CreatedAt, &wf.UpdatedAt, now)
	got, err := insertOrGet(ctx, s.workflows, wf, bson.M{"_id": wf.ID})
	return got, inField("input", err)
}

// GetWorkflow loads a workflow by workflowId.
func (s *Store) GetWorkflow(ctx context.Context, workflowID string) (Workflow, error) {
	return getByID[Workflow](ctx, s.workflows, workflowID)
}

// RecordStepAttempt records, while a long attempt runs, that step stepIndex of a
// pending or processing workflow is being started, and returns how many
// times it has been started, this time included. Only the furthest step
// started is counted: a run that resumes from an earlier checkpoint
// replays steps before it (0 is returned for those, and when the workflow
// ended or has no projection), so a step the function's timeout keeps
// killing is counted once per run however many steps precede it in the
// run. Single-document updates: a workflow's steps run one at a time, on
// its partition.
func (s *Store) RecordStepAttempt(ctx context.Context, workflowID string, stepIndex int) (int, error) {
	active := bson.M{"$in": status.WorkflowActive()}
	var got struct {
		Started int `bson:"stepAttemptsStarted"`
	}
	err := s.workflows.FindOneAndUpdate(ctx,
		bson.D{{Key: "_id", Value: workflowID}, {Key: "status", Value: active}, {Key: "attemptStepIndex", Value: stepIndex}},
		bson.M{"$inc": bson.M{"stepAttemptsStarted": 1}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&got)
	if err == nil {
		return got.Started, nil
	}
	if err = normalise(err); !errors.Is(err, ErrNotFound) {
		return 0, fmt.Errorf("store: record step attempt: %w", err)
	}
	res, err := s.workflows.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: workflowID}, {Key: "status", Value: active}, {Key: "$or", Value: bson.A{
			bson.M{"attemptStepIndex": bson.M{"$lt": stepIndex}}, bson.M{"attemptStepIndex": bson.M{"$exists": false}}}}},
		bson.M{"$set": bson.M{"attemptStepIndex": stepIndex, "stepAttemptsStarted": 1}})
	if err != nil {
		return 0, fmt.Errorf("store: record step attempt: %w", normalise(err))
	}
	if res.MatchedCount == 0 {
		return 0, nil
	}
	return 1, nil
}

// WorkflowCheckpoint is a workflow's projection together with what a
// resumed run needs: the records the step at CurrentStepIndex reads.
type WorkflowCheckpoint struct {
	Workflow `bson:",inline"`
	// ResumeRecords are the records the next step reads, kept while the
	// workflow is processing, so a retried batch resumes at that step
	// without running the finished ones again, and once it failed, so a
	// rerun from the failed step reads what that step was given. Empty
	// once it completed.
	ResumeRecords []JSONDoc `bson:"resumeRecords,omitempty" json:"-"`
	// RederiveInput says a rerun starts at CurrentStepIndex without the
	// records that step reads: the workflow-processor computes them again
	// from the input by running the steps before it in memory. Cleared by
	// the first checkpoint of the run.
	RederiveInput bool `bson:"rederiveInput,omitempty" json:"-"`
}

// GetWorkflowCheckpoints loads workflows by workflowId with one query;
// workflows that do not exist are absent from the map.
func (s *Store) GetWorkflowCheckpoints(ctx context.Context, workflowIDs []string) (map[string]WorkflowCheckpoint, error) {
	return findByIDs(ctx, s.workflows, "workflows", workflowIDs, func(c WorkflowCheckpoint) string { return c.ID })
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
	return upsertForward(ctx, s.workflows, "workflow checkpoints", cps, func(cp WorkflowCheckpoint) (string, bson.D, bson.M) {
		return cp.WorkflowID, bson.D{
			{Key: "status", Value: bson.M{"$in": status.WorkflowActive()}},
			{Key: "currentStepIndex", Value: bson.M{"$lte": cp.CurrentStepIndex}},
		}, checkpointUpdate(cp, now)
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
	completed := cp.CompletedAt
	if completed == nil && status.WorkflowIsFinal(cp.Status) {
		completed = &now // what ended has an end: idx_completed_ttl expires it
	}
	optional("completedAt", completed, completed != nil)
	optional("resumeRecords", cp.ResumeRecords, len(cp.ResumeRecords) > 0 &&
		(cp.Status == status.WorkflowProcessing || cp.Status == status.WorkflowFailed))
	unset["rederiveInput"] = "" // a run's checkpoint holds its records
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
	setOrigin(onInsert, origin{cp.CorrelationID, cp.WebhookEventID, cp.PartnerID, cp.UserID, cp.TraceID})
	update := bson.M{"$set": set, "$setOnInsert": onInsert}
	if len(unset) > 0 {
		update["$unset"] = unset
	}
	return update
}

// RerunWorkflow stores the rerun of a workflow that ended: its run
// becomes rerun.Attempt, pending at step from (rerun.FromStepIndex), with
// the results of the steps before it as they are (StepResults[:from]),
// the records that step reads (resume; empty with rederive set when they
// were not kept) and the error, times and attempt counters of the run
// before cleared; rerun is appended to Reruns. It applies only to the
// workflow as it was loaded (its status and attempt unchanged since):
// otherwise ErrStatusConflict, and the caller loads it again.
func (s *Store) RerunWorkflow(ctx context.Context, loaded Workflow, rerun WorkflowRerun, resume []JSONDoc, rederive bool) error {
	from := rerun.FromStepIndex
	if from < 0 || from > len(loaded.StepResults) || from >= len(loaded.Steps) {
		return fmt.Errorf("store: rerun of %s from step %d: out of range", loaded.WorkflowID, from)
	}
	filter := bson.D{{Key: "_id", Value: loaded.WorkflowID}, {Key: "status", Value: loaded.Status}}
	if loaded.Attempt > 1 {
		filter = append(filter, bson.E{Key: "attempt", Value: loaded.Attempt})
	} else {
		filter = append(filter, bson.E{Key: "attempt", Value: bson.M{"$exists": false}})
	}
	set := bson.M{
		"status": status.WorkflowPending, "currentStepIndex": from, "stepResults": loaded.StepResults[:from],
		"attempt": rerun.Attempt, "updatedAt": s.now(),
	}
	if from == 0 {
		set["stepResults"] = []StepProgress{}
	}
	unset := bson.M{"error": "", "startedAt": "", "completedAt": "", "stepAttempts": "", "attemptStepIndex": "", "stepAttemptsStarted": ""}
	setOrUnset(set, unset, "resumeRecords", resume, len(resume) > 0)
	setOrUnset(set, unset, "rederiveInput", true, rederive)
	rerun.RequestedAt = bsonTime(rerun.RequestedAt)
	update := bson.M{"$set": set, "$unset": unset,
		"$push": bson.M{"reruns": bson.M{"$each": bson.A{rerun}, "$slice": -MaxWorkflowReruns}}}
	if dropped := len(loaded.Reruns) + 1 - MaxWorkflowReruns; dropped > 0 {
		update["$inc"] = bson.M{"rerunsDropped": dropped}
	}
	res, err := s.workflows.UpdateOne(ctx, filter, update)
	if err != nil {
		return fmt.Errorf("store: rerun workflow: %w", normalise(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%w: workflow %s changed since it was loaded", ErrStatusConflict, loaded.WorkflowID)
	}
	return nil
}

// WorkflowExpired reports whether workflowID, a workflow not found, names
// one its retention deleted: events or events_archive hold its events,
// the newest stored more than Retention.Workflows ago (a workflow ends
// with its last event). A workflow whose events are younger is one still
// being created (its projection follows its workflow.created), not an
// expired one. It reads one event, by idx_aggregate_ts, per collection
// at most.
func (s *Store) WorkflowExpired(ctx context.Context, workflowID string) (bool, error) {
	newest := options.FindOne().SetSort(bson.D{{Key: "aggregate_id", Value: 1}, {Key: "timestamp", Value: -1}}).
		SetProjection(bson.M{"stored_at": 1})
	for i, coll := range []lungo.ICollection{s.events, s.archive} { // the newest are in events
		ev, err := findOne[EventDocument](ctx, coll, bson.M{"aggregate_id": workflowID}, newest)
		switch {
		case errors.Is(err, ErrNotFound):
			continue
		case err != nil:
			return false, fmt.Errorf("store: look for the events of workflow %s in %s: %w", workflowID, []string{CollEvents, CollEventsArchive}[i], err)
		}
		return !ev.StoredAt.After(s.now().Add(-s.cfg.Retention.Workflows)), nil
	}
	return false, nil
}
