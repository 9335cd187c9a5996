package workflow

import (
	"context"
	"encoding/json"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/store"
)

// maxDatasetLength bounds a dataset name.
const maxDatasetLength = 100

// StoreStep writes every record to the workflow_records collection under the
// input's "dataset" parameter (default: the workflow's name), with ids
// derived from the workflow id, step index and record index, and passes the
// records on.
func StoreStep(_ context.Context, in StepInput) (StepOutput, error) {
	dataset := in.Workflow.Name
	if _, err := in.Param("dataset", &dataset); err != nil {
		return StepOutput{}, fault.Permanent(CodeStore, "%w", err)
	}
	if dataset == "" || len(dataset) > maxDatasetLength {
		return StepOutput{}, fault.Permanent(CodeStore, "input.dataset must be 1 to %d characters", maxDatasetLength)
	}
	recs := make([]store.WorkflowRecord, len(in.Records))
	for i, r := range in.Records {
		recs[i] = store.WorkflowRecord{
			ID:         store.WorkflowRecordID(in.Workflow.ID, in.StepIndex, i),
			WorkflowID: in.Workflow.ID, Dataset: dataset, StepIndex: in.StepIndex, RecordIndex: i,
			Record: store.JSONDoc(r), StoredAt: in.At,
		}
	}
	in.Effects.StoreRecords(recs...)
	n := len(in.Records)
	ds, _ := json.Marshal(dataset)
	return StepOutput{Records: in.Records, Result: events.StepResult{
		RecordsProcessed: n, ValidRecords: n,
		Extra: map[string]json.RawMessage{"dataset": ds},
	}}, nil
}
