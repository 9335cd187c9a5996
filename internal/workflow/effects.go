package workflow

import (
	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// Effects collects the writes steps ask for. The processor applies the
// effects of a whole batch with one bulk write per collection, after its
// steps ran and before the checkpoints that say they happened. Every write
// must carry a deterministic id, so applying it again is a duplicate.
type Effects struct {
	records []store.WorkflowRecord
	tasks   []store.Task
	events  []events.Envelope
	outbox  []store.OutboxEntry
}

// StoreRecords asks for records to be written to workflow_records.
func (e *Effects) StoreRecords(recs ...store.WorkflowRecord) {
	e.records = append(e.records, recs...)
}

// StartTask asks for a pending task to be stored and its task.created
// event emitted.
func (e *Effects) StartTask(t store.Task, created events.Envelope) {
	e.tasks = append(e.tasks, t)
	e.events = append(e.events, created)
}

// EnqueueOutbox asks for outbox entries (partner deliveries) to be enqueued.
func (e *Effects) EnqueueOutbox(entries ...store.OutboxEntry) {
	e.outbox = append(e.outbox, entries...)
}

// add appends o's writes to e.
func (e *Effects) add(o *Effects) {
	e.records = append(e.records, o.records...)
	e.tasks = append(e.tasks, o.tasks...)
	e.events = append(e.events, o.events...)
	e.outbox = append(e.outbox, o.outbox...)
}
