package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/runlog"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/tracing"
)

// Router routes a stored webhook event again (ingest.Service).
type Router interface {
	Route(ctx context.Context, ev store.WebhookEvent) error
}

// TaskRetrier redelivers up to limit failed tasks whose nextRetryAt is due
// at now, each as the task.failed that scheduled its retry (task.Retrier),
// and returns how many it redelivered.
type TaskRetrier interface {
	RetryDue(ctx context.Context, now time.Time, limit int) (int, error)
}

// SweepStore is what the retry-sweeper reads and writes; *store.Store
// implements it.
type SweepStore interface {
	UnpublishedEvents(ctx context.Context, storedBefore time.Time, limit int) ([]store.EventDocument, error)
	ReopenLedgers(ctx context.Context, storedBefore time.Time, limit int) (int, error)
	MarkPublished(ctx context.Context, eventIDs ...string) error
	WebhookEventsToRoute(ctx context.Context, receivedBefore time.Time, maxRetries, limit int) ([]store.WebhookEvent, error)
	StalledWebhookEvents(ctx context.Context, before time.Time, limit int) ([]store.WebhookEvent, error)
	WorkStartedBy(ctx context.Context, row store.WebhookEvent) (*store.Workflow, *store.Task, error)
	MarkWebhookEventRedriven(ctx context.Context, eventID string) error
	SettleWebhookEvents(ctx context.Context, outcomes ...store.WebhookOutcome) (int, error)
	StalledWorkflows(ctx context.Context, before time.Time, limit int) ([]store.Workflow, error)
	StalledTasks(ctx context.Context, before time.Time, limit int) ([]store.Task, error)
	LatestDrivingEvent(ctx context.Context, aggregateID string, byExecution bool, types ...events.Type) (store.EventDocument, error)
	GetEvent(ctx context.Context, eventID string) (store.EventDocument, error)
	MarkWorkflowRedriven(ctx context.Context, workflowID string) error
	MarkTaskRedriven(ctx context.Context, taskID string) error
	ReconcilePartnerDeliveries(ctx context.Context, limit int) (int, error)
	DeadLetterUnpublished(ctx context.Context, eventID string, dl store.DeadLetterEntry) error
	FanOutEvents(ctx context.Context, envs []events.Envelope) error
}

// Config wires a Sweeper.
type Config struct {
	// Store is swept. Required.
	Store SweepStore
	// Publisher publishes stored events. Required.
	Publisher emit.Publisher
	// Router routes webhook events. Required.
	Router Router
	// Tasks redelivers due task retries. Optional: without it that pass is
	// skipped.
	Tasks TaskRetrier
	// PublishAfter is how long a stored event may stay unpublished before
	// the sweeper publishes it: longer than the inline publish path takes.
	// Default 30 s.
	PublishAfter time.Duration
	// GiveUpAfter is how long a stored event may stay unpublished before
	// the sweeper stops retrying it and dead-letters it
	// (stream.ReasonPublishExpired; env STREAMOPS_SWEEP_GIVE_UP_AFTER in the
	// retry-sweeper). An event Kafka refuses for good (MESSAGE_TOO_LARGE,
	// any non-retryable produce error) is dead-lettered at once
	// (stream.ReasonUnpublishable). Default DefaultGiveUpAfter (24 h).
	GiveUpAfter time.Duration
	// ReceivedAfter is how long a webhook event may stay received (stored,
	// not routed) before the sweeper routes it. Default 2 minutes.
	ReceivedAfter time.Duration
	// WebhookMaxRetries bounds how often a webhook event whose routing
	// failed is routed again (its retry_count). A failed one whose run
	// reached its end is never routed again, whatever its count. Default 5.
	WebhookMaxRetries int
	// StallAfter is how long a pending or processing workflow or task, or a
	// processing webhook event, may make no progress before the sweeper
	// drives it again from its stored state (env
	// STREAMOPS_SWEEP_STALL_AFTER in the retry-sweeper). Default
	// DefaultStallAfter (10 minutes).
	StallAfter time.Duration
	// BatchSize bounds each pass's reads. Default 100.
	BatchSize int
	// SafetyMargin is how long before the deadline the sweeper stops.
	// Default 10 s.
	SafetyMargin time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives progress. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives the counts. Default none.
	Metrics *metrics.Recorder
}

func (c *Config) setDefaults() {
	if c.PublishAfter <= 0 {
		c.PublishAfter = 30 * time.Second
	}
	if c.GiveUpAfter <= 0 {
		c.GiveUpAfter = DefaultGiveUpAfter
	}
	if c.ReceivedAfter <= 0 {
		c.ReceivedAfter = 2 * time.Minute
	}
	if c.WebhookMaxRetries <= 0 {
		c.WebhookMaxRetries = 5
	}
	if c.StallAfter <= 0 {
		c.StallAfter = DefaultStallAfter
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 100
	}
	if c.SafetyMargin <= 0 {
		c.SafetyMargin = 10 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Validate reports the first missing field.
func (c Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("sweep: Config.Store is required")
	case c.Publisher == nil:
		return errors.New("sweep: Config.Publisher is required")
	case c.Router == nil:
		return errors.New("sweep: Config.Router is required")
	case c.GiveUpAfter != 0 && c.PublishAfter != 0 && c.GiveUpAfter <= c.PublishAfter:
		return errors.New("sweep: Config.GiveUpAfter must be longer than PublishAfter")
	}
	return nil
}

// Sweeper runs the sweeps.
type Sweeper struct{ cfg Config }

// New returns a Sweeper.
func New(cfg Config) (*Sweeper, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Sweeper{cfg: cfg}, nil
}

// Stats counts what a run did.
type Stats struct {
	Published     int `json:"published"`
	PublishFailed int `json:"publishFailed"`
	// LedgersReopened counts publish ledgers a crash left open, whose
	// events went back to the pending path to be published again.
	LedgersReopened int `json:"ledgersReopened"`
	// DeadLettered counts stored events the sweeper gave up publishing
	// (refused for good, or unpublished past GiveUpAfter).
	DeadLettered   int `json:"deadLettered"`
	TasksRetried   int `json:"tasksRetried"`
	WebhooksRouted int `json:"webhooksRouted"`
	WebhooksFailed int `json:"webhooksFailed"`
	// PartnerReconciled counts partner deliveries seed 000's retry query
	// still selected although their outbox entry was over.
	PartnerReconciled int `json:"partnerReconciled"`
	// WorkflowsRedriven, TasksRedriven and WebhooksRedriven count the
	// stalled items driven again; RedriveFailed those that could not be
	// (no stored event drives them, or routing failed).
	WorkflowsRedriven int `json:"workflowsRedriven"`
	TasksRedriven     int `json:"tasksRedriven"`
	WebhooksRedriven  int `json:"webhooksRedriven"`
	RedriveFailed     int `json:"redriveFailed"`
}

// Run runs every pass once and logs the counts. A pass that fails does not
// stop the others; the first error is returned so the invocation shows as
// failed.
func (s *Sweeper) Run(ctx context.Context) (Stats, error) {
	var st Stats
	errs := []error{
		s.publishPending(ctx, &st),
		s.retryTasks(ctx, &st),
		s.routeWebhooks(ctx, &st),
		s.redriveStalled(ctx, &st),
		s.reconcilePartnerEvents(ctx, &st),
	}
	// Idle: every count zero. A failed pass is the invocation's error,
	// reported by whoever invoked it.
	runlog.Finished(ctx, s.cfg.Logger, st == (Stats{}), "retry-sweeper run finished", "stats", st)
	s.cfg.Metrics.Record(
		metrics.Metric{Name: "SweeperPublished", Unit: metrics.Count, Value: float64(st.Published)},
		metrics.Metric{Name: "SweeperDeadLettered", Unit: metrics.Count, Value: float64(st.DeadLettered)},
		metrics.Metric{Name: "SweeperLedgersReopened", Unit: metrics.Count, Value: float64(st.LedgersReopened)},
		metrics.Metric{Name: "SweeperTasksRetried", Unit: metrics.Count, Value: float64(st.TasksRetried)},
		metrics.Metric{Name: "SweeperWebhooksRouted", Unit: metrics.Count, Value: float64(st.WebhooksRouted)},
		metrics.Metric{Name: "SweeperPartnerReconciled", Unit: metrics.Count, Value: float64(st.PartnerReconciled)},
		metrics.Metric{Name: "SweeperWorkflowsRedriven", Unit: metrics.Count, Value: float64(st.WorkflowsRedriven)},
		metrics.Metric{Name: "SweeperTasksRedriven", Unit: metrics.Count, Value: float64(st.TasksRedriven)},
		metrics.Metric{Name: "SweeperWebhooksRedriven", Unit: metrics.Count, Value: float64(st.WebhooksRedriven)},
		metrics.Metric{Name: "SweeperRedriveFailed", Unit: metrics.Count, Value: float64(st.RedriveFailed)},
	)
	return st, errors.Join(errs...)
}

// publishPending publishes events stored over PublishAfter ago and still
// unpublished, oldest first, a batch per flush. An event that can never be
// published (undecodable, or refused by Kafka for good) or that stayed
// unpublished past GiveUpAfter is dead-lettered (giveUp) instead of being
// retried every run. Any other failure ends the pass: the broker is likely
// down, the next run retries.
func (s *Sweeper) publishPending(ctx context.Context, st *Stats) error {
	// First the stores a crash cut short between their publish ledger
	// and its close: their events become pending, with their first
	// stored_at, so the loop below publishes them in this run.
	for deadline.Left(ctx, s.cfg.SafetyMargin) {
		n, err := s.cfg.Store.ReopenLedgers(ctx, s.cfg.Now().Add(-s.cfg.PublishAfter), s.cfg.BatchSize)
		st.LedgersReopened += n
		if err != nil {
			return err
		}
		if n < s.cfg.BatchSize {
			break
		}
	}
	for deadline.Left(ctx, s.cfg.SafetyMargin) {
		docs, err := s.cfg.Store.UnpublishedEvents(ctx, s.cfg.Now().Add(-s.cfg.PublishAfter), s.cfg.BatchSize)
		if err != nil || len(docs) == 0 {
			return err
		}
		envs := make([]events.Envelope, 0, len(docs))
		storedAt := make(map[string]time.Time, len(docs))
		topicOf := make(map[string]string, len(docs))
		byTopic := map[string][]events.Envelope{}
		var topics []string
		for _, d := range docs {
			env, err := d.Envelope()
			if err != nil {
				if err := s.giveUp(ctx, st, d.EventID, d.EventType, d.PublishTopic, events.Envelope{}, stream.ReasonUndecodable, err); err != nil {
					return err
				}
				continue
			}
			envs = append(envs, env)
			storedAt[env.EventID], topicOf[env.EventID] = d.StoredAt, d.PublishTopic
			if _, ok := byTopic[d.PublishTopic]; !ok {
				topics = append(topics, d.PublishTopic)
			}
			byTopic[d.PublishTopic] = append(byTopic[d.PublishTopic], env)
		}
		if len(envs) == 0 {
			continue
		}
		// Their fan-out to subscribed partners, again: a crash after the
		// insert may have cut it short (duplicates are ignored).
		if err := s.cfg.Store.FanOutEvents(ctx, envs); err != nil {
			return err
		}
		failed, causes := map[string]bool{}, map[string]error{}
		var errs []error
		for _, topic := range topics {
			group := byTopic[topic]
			err := emit.PublishTo(ctx, s.cfg.Publisher, topic, group...)
			for id := range emit.Unpublished(err, group) {
				failed[id], causes[id] = true, err
			}
			for id, cause := range publishCauses(err) {
				causes[id] = cause
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
		err = errors.Join(errs...)
		var published []string
		retryLater := 0
		expired := s.cfg.Now().Add(-s.cfg.GiveUpAfter)
		for _, env := range envs {
			if !failed[env.EventID] {
				published = append(published, env.EventID)
				continue
			}
			cause := causes[env.EventID]
			var reason stream.Reason
			switch {
			case refusedForGood(ctx, cause):
				reason = stream.ReasonUnpublishable
			case !storedAt[env.EventID].After(expired):
				reason = stream.ReasonPublishExpired
			default:
				retryLater++
				continue
			}
			if err := s.giveUp(ctx, st, env.EventID, string(env.EventType), topicOf[env.EventID], env, reason, cause); err != nil {
				return err
			}
		}
		if err := s.cfg.Store.MarkPublished(ctx, published...); err != nil {
			return err
		}
		st.Published += len(published)
		st.PublishFailed += retryLater
		if len(published) > 0 {
			s.cfg.Logger.InfoContext(ctx, "published events the inline path left", "count", len(published), "failed", len(failed))
		}
		if retryLater > 0 {
			return err
		}
	}
	return nil
}

// publishCauses maps each event a *bus.PublishError names to its own
// failure, so one event refused for good is told apart from a broker that
// is down.
func publishCauses(err error) map[string]error {
	causes := map[string]error{}
	if pe, ok := errors.AsType[*bus.PublishError](err); ok {
		for _, f := range pe.Failed {
			causes[f.EventID] = f.Err
		}
	}
	return causes
}

// refusedForGood reports whether Kafka will refuse the event whatever the
// sweeper does: a non-retryable failure that is not this invocation ending
// (a cancelled context, a closed client say nothing about the event).
func refusedForGood(ctx context.Context, cause error) bool {
	switch {
	case ctx.Err() != nil, errors.Is(cause, context.Canceled), errors.Is(cause, kgo.ErrClientClosed):
		return false
	}
	return !fault.IsRetryable(cause)
}

// giveUp dead-letters a stored event the sweeper will not publish: a
// dead_letters entry (processor retry-sweeper, the record it would have
// produced, the reason and error) visible in GET /api/dead-letters, and
// the event off the sweeper's list.
func (s *Sweeper) giveUp(ctx context.Context, st *Stats, eventID, eventType, topic string, env events.Envelope, reason stream.Reason, cause error) error {
	if topic == "" {
		topic = events.Type(eventType).Topic()
	}
	dlTopic := topic
	if dlTopic == "" {
		dlTopic = "unrouted"
	}
	dl := store.DeadLetterEntry{Processor: "retry-sweeper", Topic: dlTopic, Reason: string(reason),
		Error: fault.Text(cause), EventType: eventType, RecordTimestamp: env.Timestamp.Time}
	if env.EventID != "" {
		dl.AggregateID = env.AggregateID()
		if rec, err := bus.NewRecord(env, topic); err == nil {
			dl.Key, dl.Value = string(rec.Key), rec.Value
			for _, h := range rec.Headers {
				dl.Headers = append(dl.Headers, store.DeadLetterHeader{Key: h.Key, Value: string(h.Value)})
			}
		} else if v, err := json.Marshal(env); err == nil {
			dl.Value = v
		}
	}
	if err := s.cfg.Store.DeadLetterUnpublished(ctx, eventID, dl); err != nil {
		return fmt.Errorf("sweep: dead-letter unpublished event %s: %w", eventID, err)
	}
	st.DeadLettered++
	s.cfg.Logger.WarnContext(ctx, "gave up publishing a stored event; it is a dead letter now",
		"eventId", eventID, "eventType", eventType, "reason", reason, "error", cause)
	return nil
}

// retryTasks redelivers the task retries that are due, a batch at a time,
// until none is left or the deadline nears.
func (s *Sweeper) retryTasks(ctx context.Context, st *Stats) error {
	if s.cfg.Tasks == nil {
		return nil
	}
	for deadline.Left(ctx, s.cfg.SafetyMargin) {
		n, err := s.cfg.Tasks.RetryDue(ctx, s.cfg.Now(), s.cfg.BatchSize)
		st.TasksRetried += n
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// routeWebhooks routes webhook events whose routing failed (below the
// retry limit; never one whose run reached its end) and received ones a
// crash left behind, each as its current attempt, so with the ids it had
// the first time. Each event is tried once per run.
func (s *Sweeper) routeWebhooks(ctx context.Context, st *Stats) error {
	seen := map[string]bool{}
	for deadline.Left(ctx, s.cfg.SafetyMargin) {
		evs, err := s.cfg.Store.WebhookEventsToRoute(ctx, s.cfg.Now().Add(-s.cfg.ReceivedAfter), s.cfg.WebhookMaxRetries, s.cfg.BatchSize)
		if err != nil {
			return err
		}
		progressed := false
		for _, ev := range evs {
			if seen[ev.EventID] {
				continue
			}
			seen[ev.EventID], progressed = true, true
			// Routing again continues the trace the webhook arrived in.
			ctx := tracing.Resume(ctx, ev.TraceID, ev.EventID)
			if err := s.cfg.Router.Route(ctx, ev); err != nil {
				st.WebhooksFailed++
				s.cfg.Logger.WarnContext(ctx, "webhook event still not routable", "webhookEventId", ev.EventID,
					"retryCount", ev.RetryCount, "error", err)
				continue
			}
			st.WebhooksRouted++
		}
		if !progressed {
			return nil
		}
	}
	return nil
}

// reconcilePartnerEvents runs seed 000's "failed events for retry" query
// over the OUT deliveries and gives those whose outbox entry is over
// (completed, dead_letter) that entry's final status, so the query selects
// only deliveries whose retry the relay has scheduled. It never sends
// anything: the relay retries on seed 000's schedule, and a dead letter is
// final until an operator requeues it.
func (s *Sweeper) reconcilePartnerEvents(ctx context.Context, st *Stats) error {
	n, err := s.cfg.Store.ReconcilePartnerDeliveries(ctx, 10*s.cfg.BatchSize)
	st.PartnerReconciled += n
	return err
}
