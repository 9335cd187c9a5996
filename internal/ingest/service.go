package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/vault"
)

// Errors of Receive besides those of package webhook (signature and payload
// errors), for the HTTP layer to map.
var (
	// ErrUnknownProvider: no provider of that name is configured (404).
	ErrUnknownProvider = errors.New("ingest: unknown provider")
	// ErrBodyTooLarge: the body exceeds the provider's limit (413).
	ErrBodyTooLarge = errors.New("ingest: body too large")
	// ErrSecretsUnavailable: the provider's secrets could not be read (503).
	ErrSecretsUnavailable = errors.New("ingest: webhook secrets unavailable")
)

// Receipt statuses.
const (
	Accepted  = "accepted"
	Duplicate = "duplicate"
)

// Receipt is the answer to a webhook delivery.
type Receipt struct {
	// Status is "accepted" for a new event, "duplicate" for a redelivery
	// or a partner's resend (ResendError).
	Status string `json:"status"`
	// WebhookEventID is the stored webhook event's id (the same for every
	// redelivery); for a partner's resend of an entity state under a new
	// event id, the id of the delivery whose work runs.
	WebhookEventID string `json:"webhookEventId"`
	// TraceID is the trace the event's work is in: the first delivery's,
	// for a redelivery too (the answer's X-Trace-Id).
	TraceID string `json:"-"`
}

// ResendError is write's answer for a partner delivery that carries the
// entity state another webhook event already delivered (seed 000's
// entity_id + event_type, same content): it starts nothing.
type ResendError struct {
	// Of is the webhook event whose delivery holds that state.
	Of string
}

func (e *ResendError) Error() string {
	return "ingest: a resend of the entity state webhook event " + e.Of + " delivered"
}

// WebhookStore is what the webhook ingest reads and writes; *store.Store
// implements it.
type WebhookStore interface {
	submit.Creator
	InsertWebhookEvent(ctx context.Context, ev store.WebhookEvent) (store.WebhookEvent, error)
	GetWebhookEvent(ctx context.Context, eventID string) (store.WebhookEvent, error)
	SetWebhookStatus(ctx context.Context, eventID, status, errMsg string) error
	MarkWebhookRouted(ctx context.Context, eventID, runID string) error
	StartWebhookAttempt(ctx context.Context, loaded store.WebhookEvent, a store.WebhookAttempt) error
	ReceivePartnerEvent(ctx context.Context, ev store.PartnerEvent) (store.PartnerReceipt, error)
}

// Config wires a Service.
type Config struct {
	// Providers is the provider registry. Required.
	Providers *provider.Registry
	// Secrets gives each provider's active signing secrets. Required.
	Secrets provider.SecretSource
	// Store persists webhook events, partner events and projections. Required.
	Store WebhookStore
	// Emitter stores then publishes the events routing produces. Required.
	Emitter *emit.Emitter
	// Now is the clock signatures are checked against. Default time.Now.
	Now func() time.Time
	// Logger receives structured logs. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives WebhooksAccepted and WebhooksDuplicate. Default none.
	Metrics *metrics.Recorder
	// Vault replaces each delivery's personal data by references before
	// anything is stored; nil redacts it instead (pii.Scrubber.Scrub).
	Vault *vault.Vault
}

func (c *Config) setDefaults() {
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
	case c.Providers == nil:
		return errors.New("ingest: Config.Providers is required")
	case c.Secrets == nil:
		return errors.New("ingest: Config.Secrets is required")
	case c.Store == nil:
		return errors.New("ingest: Config.Store is required")
	case c.Emitter == nil:
		return errors.New("ingest: Config.Emitter is required")
	}
	return nil
}

// Service receives webhooks. Safe for concurrent use.
type Service struct{ cfg Config }

// New returns a Service.
func New(cfg Config) (*Service, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Service{cfg: cfg}, nil
}

// Receive handles one delivery for provider. Headers must be canonical
// (http.Header). A nil error means the webhook event is durably stored; a
// publish failure does not fail it (the retry-sweeper publishes later).
func (s *Service) Receive(ctx context.Context, providerName string, h http.Header, body []byte) (Receipt, error) {
	p, ok := s.cfg.Providers.Provider(strings.ToLower(providerName))
	if !ok {
		return Receipt{}, fmt.Errorf("%w %q", ErrUnknownProvider, providerName)
	}
	if p.TooLarge(len(body)) {
		return Receipt{}, fmt.Errorf("%w: %d bytes, %s accepts at most %d", ErrBodyTooLarge, len(body), p.Name, p.MaxBodyBytes)
	}
	secrets, err := s.cfg.Secrets.Secrets(ctx, p.Name)
	if err != nil {
		return Receipt{}, fmt.Errorf("%w: %s: %w", ErrSecretsUnavailable, p.Name, err)
	}
	if err := p.Verify(h, body, secrets, s.cfg.Now()); err != nil {
		return Receipt{}, err
	}
	// The signature covers the raw body; everything after reads the one
	// document it carries (the body, or a GitHub form's payload field),
	// checked once: Identify (gjson), Redact and the store (encoding/json)
	// read the same document, since it repeats no key.
	doc, err := p.Document(h, body)
	if err != nil {
		return Receipt{}, err
	}
	providerEventID, eventType, err := p.Identify(h, doc)
	if err != nil {
		return Receipt{}, err
	}
	payload, err := s.protect(ctx, p, doc, store.WebhookEventID(p.Name, providerEventID))
	if err != nil {
		return Receipt{}, err
	}
	ctx, end := submit.EnsureTrace(ctx, "receive webhook")
	defer end()
	// The row keeps the trace it was received in: a redelivery stores
	// nothing, so the first delivery's stays.
	ev := store.WebhookEvent{
		EventID:  store.WebhookEventID(p.Name, providerEventID),
		Provider: p.Name, ProviderEventID: providerEventID, EventType: eventType, Payload: store.JSONDoc(payload),
		TraceID: tracing.TraceID(ctx),
	}
	// Routing is decided before anything is stored, so the row is inserted
	// already carrying its outcome (processing, skipped, or failed with the
	// reason) instead of being updated after, and an event the brokers
	// could never carry is refused with nothing stored.
	rt, planErr := s.plan(p, ev, "")
	if planErr == nil {
		if err := s.cfg.Emitter.CheckSize(rt.events...); err != nil {
			return Receipt{}, fmt.Errorf("%w: %w", ErrBodyTooLarge, err)
		}
	}
	stored, err := s.cfg.Store.InsertWebhookEvent(ctx, rt.row(ev, planErr))
	log := s.cfg.Logger.With("provider", p.Name, "providerEventId", providerEventID, "webhookEventId", stored.EventID)
	if errors.Is(err, store.ErrDuplicate) {
		log.InfoContext(ctx, "duplicate webhook delivery acknowledged")
		s.cfg.Metrics.Record(metrics.Metric{Name: "WebhooksDuplicate", Unit: metrics.Count, Value: 1})
		return Receipt{Status: Duplicate, WebhookEventID: stored.EventID, TraceID: stored.TraceID}, nil
	}
	if err != nil {
		return Receipt{}, fmt.Errorf("ingest: store webhook event: %w", err)
	}
	s.cfg.Metrics.Record(metrics.Metric{Name: "WebhooksAccepted", Unit: metrics.Count, Value: 1})
	if rt.partner != nil {
		rt.partner.VersionReceivedAt = &stored.ReceivedAt
	}
	var resend *ResendError
	if planErr != nil {
		log.WarnContext(ctx, "webhook stored as failed: it cannot be routed", "error", planErr)
	} else if err := s.write(ctx, rt); errors.As(err, &resend) {
		s.skipResend(ctx, stored.EventID, resend)
		return Receipt{Status: Duplicate, WebhookEventID: resend.Of, TraceID: stored.TraceID}, nil
	} else if err != nil {
		// The row is stored (processing): the retry-sweeper finds it
		// stalled and routes it again, with the same derived ids. The
		// delivery is accepted; asking the provider to resend would only
		// be a duplicate.
		log.ErrorContext(ctx, "webhook stored but not routed; the retry-sweeper will route it", "error", err)
	}
	return Receipt{Status: Accepted, WebhookEventID: stored.EventID, TraceID: stored.TraceID}, nil
}

// protect replaces the personal data of a delivery's document before
// anything stores or publishes it: by references into the vault, or,
// without one, by redaction markers. The delivery's webhook event id
// names the subject of data seen without an email or phone number, so a
// redelivery seals to the same subject.
func (s *Service) protect(ctx context.Context, p *provider.Provider, doc []byte, eventID string) ([]byte, error) {
	if s.cfg.Vault == nil {
		return p.Redact(doc)
	}
	sc, err := p.Scrubber()
	if err != nil {
		return nil, err
	}
	out, err := s.cfg.Vault.Protect(ctx, vault.Input{Doc: doc, Scrubber: sc, Place: "webhook:" + p.Name, Key: eventID})
	if err != nil {
		return nil, provider.InvalidPayload(err)
	}
	return out, nil
}

// Route routes a stored webhook event: records a partner delivery, starts
// the workflow or task its route names (stored, then published), and moves
// the row to processing with that run, or to skipped when no route
// matches. It is idempotent: every id is the row's current attempt's, so
// routing the row again (the retry-sweeper's received, failed-routing and
// stalled passes) is the same run, never a twin. A row whose run reached
// its end (store.WebhookEvent.RunEnded) is refused (ErrRunEnded) and
// nothing is written: only an operator's NewAttempt starts it again.
func (s *Service) Route(ctx context.Context, ev store.WebhookEvent) error {
	return s.RouteAs(ctx, ev, "")
}

// ErrRunEnded: the webhook event's current attempt reached its end
// (completed, skipped, or failed after starting its run); routing it
// again would run it twice. errors.As gives the *store.StatusConflictError
// naming its status (409).
var ErrRunEnded = errors.New("ingest: the webhook event's run reached its end")

// runEnded is Route's refusal of ev, whose run reached its end.
func runEnded(ev store.WebhookEvent) error {
	how := "was " + ev.Status
	if ev.RunID != "" {
		how = fmt.Sprintf("%s (run %s)", ev.Status, ev.RunID)
	}
	return fmt.Errorf("%w: attempt %d %s; routing it again would run it twice, so only a new attempt starts it again "+
		`(POST /api/webhook-events/%s/retry with {"newAttempt":true,"reason":"…"}): %w`, ErrRunEnded, ev.CurrentAttempt(), how, ev.EventID,
		&store.StatusConflictError{Action: "a retry", Status: ev.Status,
			Allowed: []string{status.WebhookReceived, status.WebhookProcessing, status.WebhookFailed}})
}

// RouteAs is Route asked for by the principal userID (POST
// /api/webhook-events/{id}/retry): the workflow or task it starts, and so
// every event of that execution, carries userID as metadata.userId; the
// delivery's own webhook.received does not, it has no user.
//
// Whoever asks, the events continue the row's trace (ContinueTrace), so
// a retried webhook's work is in the trace of its delivery.
func (s *Service) RouteAs(ctx context.Context, ev store.WebhookEvent, userID string) error {
	p, ok := s.cfg.Providers.Provider(ev.Provider)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownProvider, ev.Provider)
	}
	if ev.RunEnded() {
		return runEnded(ev)
	}
	ctx, end := submit.EnsureTrace(ContinueTrace(ctx, ev), "route webhook")
	defer end()
	ev.TraceID = tracing.TraceID(ctx)
	rt, err := s.plan(p, ev, userID)
	if err != nil {
		s.fail(ctx, ev, err)
		return err
	}
	var resend *ResendError
	if err := s.write(ctx, rt); errors.As(err, &resend) {
		s.skipResend(ctx, ev.EventID, resend)
		return nil
	} else if err != nil {
		return err
	}
	if rt.work != nil {
		err = s.cfg.Store.MarkWebhookRouted(ctx, ev.EventID, rt.work.ID())
	} else {
		err = s.cfg.Store.SetWebhookStatus(ctx, ev.EventID, rt.status, "")
	}
	if err != nil {
		return fmt.Errorf("ingest: mark webhook %s: %w", rt.status, err)
	}
	return nil
}

// routing is what routing a webhook event writes, built before anything
// is written: every id in it is derived from the webhook event id and the
// row's attempt.
type routing struct {
	// status is the row's outcome: processing, or skipped when no route
	// starts anything.
	status string
	// events are webhook.received and the *.created event of work.
	events []events.Envelope
	// work is the workflow or task the route starts; nil when skipped.
	work *submit.Creation
	// partner is the seed-000 IN document of a partner delivery, or nil.
	partner *store.PartnerEvent
}

// row is ev as Receive inserts it, carrying the outcome of routing it:
// processing (the attempt counted, as SetWebhookStatus would), skipped, or
// failed with planErr, the reason it cannot be routed.
func (rt routing) row(ev store.WebhookEvent, planErr error) store.WebhookEvent {
	switch {
	case planErr != nil:
		ev.Status, ev.ErrorMessage, ev.RetryCount = status.WebhookFailed, fault.Text(planErr), 1
	case rt.status == status.WebhookProcessing:
		ev.Status, ev.RetryCount, ev.RunID = status.WebhookProcessing, 1, rt.work.ID()
	default:
		ev.Status = rt.status
	}
	return ev
}

// plan builds what routing ev (its current attempt, asked for by userID,
// "" for the delivery itself and the sweeper) writes, storing nothing;
// every event carries ev.TraceID as metadata.traceId, and the work of a
// new attempt its number as metadata.attempt. Its error is the event's
// content's: it will fail again on every attempt.
func (s *Service) plan(p *provider.Provider, ev store.WebhookEvent, userID string) (routing, error) {
	payload := []byte(ev.Payload)
	partner, err := s.partnerEvent(p, ev, payload)
	if err != nil {
		return routing{}, err
	}
	meta := &events.Metadata{Source: "webhook", TraceID: ev.TraceID, CorrelationID: ev.EventID, APIVersion: events.SchemaVersion,
		PartnerID: p.PartnerID()}
	received, err := events.NewEventAt(events.WebhookReceivedPayload{
		Provider: ev.Provider, ProviderEventID: ev.ProviderEventID, ProviderEventType: ev.EventType, WebhookEventID: ev.EventID,
	}, meta, events.DeriveID(events.EventIDPrefix, ev.EventID, string(events.WebhookReceived)), events.Now())
	if err != nil {
		return routing{}, fmt.Errorf("ingest: build webhook.received: %w", err)
	}
	rt := routing{status: status.WebhookSkipped, events: []events.Envelope{received}, partner: partner}
	route, matched := p.Route(ev.EventType)
	if !matched || route.Skip {
		return rt, nil
	}
	workMeta := meta
	if userID != "" || ev.CurrentAttempt() > 1 {
		m := *meta
		if userID != "" {
			m.UserID = events.String(userID)
		}
		if ev.CurrentAttempt() > 1 {
			m.Attempt = ev.CurrentAttempt()
		}
		workMeta = &m
	}
	work, err := s.routed(route, ev, payload, workMeta)
	if err != nil {
		return routing{}, err
	}
	rt.status, rt.work, rt.events = status.WebhookProcessing, &work, append(rt.events, work.Event)
	return rt, nil
}

// write stores what rt starts, the projection, the partner document and
// the events each in one command, all at once (their ids are derived, so
// any of them stored before is a harmless duplicate), then publishes the
// events it newly stored.
func (s *Service) write(ctx context.Context, rt routing) error {
	if rt.partner != nil {
		// The partner document decides first whether this delivery is a
		// resend, which must start nothing.
		rc, err := s.cfg.Store.ReceivePartnerEvent(ctx, *rt.partner)
		if err != nil {
			return fmt.Errorf("ingest: store partner event: %w", err)
		}
		if rc.Outcome == store.PartnerEventResend {
			return &ResendError{Of: rc.Event.WebhookEventID}
		}
	}
	var (
		wg       sync.WaitGroup
		workErr  error
		stored   emit.Stored
		storeErr error
	)
	if rt.work != nil {
		wg.Go(func() {
			if err := rt.work.Store(ctx, s.cfg.Store); err != nil && !errors.Is(err, store.ErrDuplicate) {
				workErr = fmt.Errorf("ingest: %w", err)
			}
		})
	}
	stored, storeErr = s.cfg.Emitter.Store(ctx, rt.events...)
	wg.Wait()
	if err := errors.Join(workErr, storeErr); err != nil {
		// Nothing is published before all of it is stored: a *.created
		// event on Kafka always finds its projection.
		return err
	}
	s.cfg.Emitter.Publish(ctx, stored)
	return nil
}

// routed is what a route starts for ev: its workflow or task, with ids
// derived from the webhook event id and its attempt, built but not
// stored. Routing the same attempt again (a crash left the row unrouted,
// a routing failure retried, an operator's plain retry) yields the same
// ids, so what it stored before is a duplicate; only an operator's new
// attempt (NewAttempt) gets new ones. The delivery's own attempt is
// "run-0", the ids it always had.
func (s *Service) routed(route provider.Route, ev store.WebhookEvent, payload []byte, meta *events.Metadata) (submit.Creation, error) {
	runID := "run-" + strconv.Itoa(ev.CurrentAttempt()-1)
	origin := func(prefix, kind string, created events.Type) submit.Origin {
		return submit.Origin{ID: events.DeriveID(prefix, ev.EventID, kind, runID),
			EventID: events.DeriveID(events.EventIDPrefix, ev.EventID, string(created), runID),
			At:      events.At(s.cfg.Now()), Metadata: meta, WebhookEventID: ev.EventID}
	}
	var (
		c   submit.Creation
		err error
	)
	switch {
	case route.Workflow != nil:
		t := route.Workflow
		c, err = submit.NewWorkflow(origin(events.WorkflowIDPrefix, "workflow", events.WorkflowCreated),
			events.WorkflowCreatedPayload{Name: t.Name, Steps: t.Steps, Priority: t.Priority, Input: json.RawMessage(payload)})
	case route.Task != nil:
		t := route.Task
		data, derr := t.BuildData(payload)
		if derr != nil {
			return submit.Creation{}, fmt.Errorf("ingest: build task data: %w", derr)
		}
		c, err = submit.NewTask(origin(events.TaskIDPrefix, "task", events.TaskCreated),
			events.TaskCreatedPayload{Type: t.Type, Data: data, MaxRetries: t.MaxRetries})
	default:
		return submit.Creation{}, fmt.Errorf("ingest: route %q names neither a workflow nor a task", route.Match)
	}
	if err != nil {
		return c, fmt.Errorf("ingest: %w", err)
	}
	return c, nil
}

// partnerEvent is the seed-000 IN document of a partner delivery, or nil
// when the provider is not a partner.
func (s *Service) partnerEvent(p *provider.Provider, ev store.WebhookEvent, payload []byte) (*store.PartnerEvent, error) {
	md, ok, err := p.PartnerMetadata(payload)
	if err != nil {
		return nil, fmt.Errorf("ingest: partner metadata: %w", err)
	}
	if !ok {
		return nil, nil
	}
	// References seal the same value differently each time: a resend
	// carrying the same personal data is told by their canonical form.
	fingerprint, err := p.EntityFingerprint(vault.Canonical(payload))
	if err != nil {
		return nil, err
	}
	received := ev.ReceivedAt // the stored row's; Receive sets it once the row is stored
	return &store.PartnerEvent{
		// _id: seed 000's key, store.PartnerEventID(partnerId, IN,
		// entity_id, event_type); a resend is told from a new state by
		// the fingerprint (store.ReceivePartnerEvent).
		WebhookEventID: ev.EventID, EntityDataHash: fingerprint, VersionReceivedAt: &received,
		EventType:      ev.EventType,
		EventStatus:    status.PartnerSuccess, // received and stored: the IN leg is done
		EventDirection: status.DirectionIn,
		CreatedBy:      "webhook:" + p.Name,
		EntityMetadata: store.PartnerEntityMetadata{
			PartnerID: md.PartnerID, PartnerName: md.PartnerName, EntityID: md.EntityID, EntityType: md.EntityType,
		},
		EntityData: store.JSONDoc(payload),
	}, nil
}

// skipResend settles the row of a resend skipped, naming the delivery it
// repeats; a row left processing is settled so by the sweeper's re-drive.
func (s *Service) skipResend(ctx context.Context, webhookEventID string, resend *ResendError) {
	s.cfg.Logger.InfoContext(ctx, "partner resend acknowledged: the entity state is already stored",
		"webhookEventId", webhookEventID, "resendOf", resend.Of)
	if err := s.cfg.Store.SetWebhookStatus(ctx, webhookEventID, status.WebhookSkipped, "resend of webhook event "+resend.Of); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "could not mark a resend skipped", "webhookEventId", webhookEventID, "error", err)
	}
}

// ContinueTrace returns ctx continuing the trace ev was received in
// (tracing.Resume, seeded by its event id): later work on a stored row
// (the retry-sweeper's, an operator's retry) joins the delivery's trace.
// A row stored without a trace leaves ctx as it is.
func ContinueTrace(ctx context.Context, ev store.WebhookEvent) context.Context {
	return tracing.Resume(ctx, ev.TraceID, ev.EventID)
}

// fail marks a webhook event failed with the reason, for the sweeper and
// the operators; routing errors caused by the event's content land here.
// The failed routing counts as a processing attempt (retry_count), so the
// sweeper's retries of it are bounded.
func (s *Service) fail(ctx context.Context, ev store.WebhookEvent, cause error) {
	err := s.cfg.Store.SetWebhookStatus(ctx, ev.EventID, status.WebhookProcessing, "")
	if err == nil {
		err = s.cfg.Store.SetWebhookStatus(ctx, ev.EventID, status.WebhookFailed, fault.Text(cause))
	}
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "could not mark webhook failed", "webhookEventId", ev.EventID, "error", err)
	}
}
