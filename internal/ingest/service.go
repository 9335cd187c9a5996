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
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/ingest/webhookstatus"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/outbox/partnerstatus"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
)

// Errors of Receive besides those of package provider (signature and payload
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
	// Status is "accepted" for a new event, "duplicate" for a redelivery.
	Status string `json:"status"`
	// WebhookEventID is the stored webhook event's id (the same for every
	// redelivery).
	WebhookEventID string `json:"webhookEventId"`
}

// WebhookStore is what the webhook ingest reads and writes; *store.Store
// implements it.
type WebhookStore interface {
	submit.Creator
	InsertWebhookEvent(ctx context.Context, ev store.WebhookEvent) (store.WebhookEvent, error)
	SetWebhookStatus(ctx context.Context, eventID, status, errMsg string) error
	InsertPartnerEvent(ctx context.Context, ev store.PartnerEvent) (store.PartnerEvent, error)
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
	payload, err := p.Redact(doc)
	if err != nil {
		return Receipt{}, err
	}
	ev := store.WebhookEvent{
		EventID:  store.WebhookEventID(p.Name, providerEventID),
		Provider: p.Name, ProviderEventID: providerEventID, EventType: eventType, Payload: store.JSONDoc(payload),
	}
	if err := s.checkPublishable(p, ev, payload); err != nil {
		return Receipt{}, err
	}
	stored, err := s.cfg.Store.InsertWebhookEvent(ctx, ev)
	log := s.cfg.Logger.With("provider", p.Name, "providerEventId", providerEventID, "webhookEventId", stored.EventID)
	if errors.Is(err, store.ErrDuplicate) {
		log.InfoContext(ctx, "duplicate webhook delivery acknowledged")
		s.cfg.Metrics.Record(metrics.Metric{Name: "WebhooksDuplicate", Unit: metrics.Count, Value: 1})
		return Receipt{Status: Duplicate, WebhookEventID: stored.EventID}, nil
	}
	if err != nil {
		return Receipt{}, fmt.Errorf("ingest: store webhook event: %w", err)
	}
	s.cfg.Metrics.Record(metrics.Metric{Name: "WebhooksAccepted", Unit: metrics.Count, Value: 1})
	if err := s.Route(ctx, stored); err != nil {
		// The webhook event is stored (status received): the retry-sweeper
		// routes it again, with the same derived ids. The delivery is
		// accepted; asking the provider to resend would only be a duplicate.
		log.ErrorContext(ctx, "webhook stored but not routed; the retry-sweeper will route it", "error", err)
	}
	return Receipt{Status: Accepted, WebhookEventID: stored.EventID}, nil
}

// Route routes a stored webhook event: records a partner delivery, starts
// the workflow or task its route names (stored, then published), and moves
// the row to processing, or to skipped when no route matches. It is
// idempotent, so the retry-sweeper calls it for rows left in received or
// failed.
func (s *Service) Route(ctx context.Context, ev store.WebhookEvent) error {
	p, ok := s.cfg.Providers.Provider(ev.Provider)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownProvider, ev.Provider)
	}
	payload := []byte(ev.Payload)
	if err := s.recordPartnerEvent(ctx, p, ev, payload); err != nil {
		return err
	}
	meta := &events.Metadata{Source: "webhook", CorrelationID: ev.EventID, APIVersion: events.SchemaVersion, PartnerID: ev.Provider}
	received, err := events.NewEvent(events.WebhookReceivedPayload{
		Provider: ev.Provider, ProviderEventID: ev.ProviderEventID, ProviderEventType: ev.EventType, WebhookEventID: ev.EventID,
	}, meta)
	if err != nil {
		return fmt.Errorf("ingest: build webhook.received: %w", err)
	}
	received.EventID = events.DeriveID(events.EventIDPrefix, ev.EventID, string(events.WebhookReceived))
	toEmit := []events.Envelope{received}

	route, matched := p.Route(ev.EventType)
	status := webhookstatus.Skipped
	if matched && !route.Skip {
		started, err := s.start(ctx, route, ev, payload, meta)
		if err != nil {
			s.fail(ctx, ev, err)
			return err
		}
		toEmit = append(toEmit, started)
		status = webhookstatus.Processing
	}
	if _, err := s.cfg.Emitter.Emit(ctx, toEmit...); err != nil {
		return err
	}
	if err := s.cfg.Store.SetWebhookStatus(ctx, ev.EventID, status, ""); err != nil {
		return fmt.Errorf("ingest: mark webhook %s: %w", status, err)
	}
	return nil
}

// start creates the workflow or task a route names and returns its
// *.created event, with ids derived from the webhook event id and its
// processing attempt: routing the same attempt again (a crash left the row
// received) yields the same ids, while the sweeper's retry of a failed row
// (retry_count went up when it was processed) starts a fresh run.
func (s *Service) start(ctx context.Context, route provider.Route, ev store.WebhookEvent, payload []byte, meta *events.Metadata) (events.Envelope, error) {
	o, wf, task, err := s.routed(route, ev, payload, meta)
	if err != nil {
		return events.Envelope{}, err
	}
	var env events.Envelope
	if wf != nil {
		env, _, err = submit.CreateWorkflow(ctx, s.cfg.Store, o, *wf)
	} else {
		env, _, err = submit.CreateTask(ctx, s.cfg.Store, o, *task)
	}
	if err != nil && !errors.Is(err, store.ErrDuplicate) {
		return env, fmt.Errorf("ingest: %w", err)
	}
	return env, nil
}

// routed is what a route starts for ev: the Origin (ids derived from the
// webhook event id and its processing attempt) and the workflow or task
// payload, storing nothing.
func (s *Service) routed(route provider.Route, ev store.WebhookEvent, payload []byte, meta *events.Metadata) (submit.Origin, *events.WorkflowCreatedPayload, *events.TaskCreatedPayload, error) {
	run := "run-" + strconv.Itoa(ev.RetryCount)
	origin := func(prefix, kind string, created events.Type) submit.Origin {
		return submit.Origin{ID: events.DeriveID(prefix, ev.EventID, kind, run),
			EventID: events.DeriveID(events.EventIDPrefix, ev.EventID, string(created), run),
			At:      events.At(s.cfg.Now()), Metadata: meta, WebhookEventID: ev.EventID}
	}
	switch {
	case route.Workflow != nil:
		t := route.Workflow
		return origin(events.WorkflowIDPrefix, "workflow", events.WorkflowCreated), &events.WorkflowCreatedPayload{
			Name: t.Name, Steps: t.Steps, Priority: t.Priority, Input: json.RawMessage(payload)}, nil, nil
	case route.Task != nil:
		t := route.Task
		data, err := t.BuildData(payload)
		if err != nil {
			return submit.Origin{}, nil, nil, fmt.Errorf("ingest: build task data: %w", err)
		}
		return origin(events.TaskIDPrefix, "task", events.TaskCreated), nil, &events.TaskCreatedPayload{
			Type: t.Type, Data: data, MaxRetries: t.MaxRetries}, nil
	}
	return submit.Origin{}, nil, nil, fmt.Errorf("ingest: route %q names neither a workflow nor a task", route.Match)
}

// checkPublishable refuses, before anything is stored, a delivery whose
// routed *.created event could never be published: its Kafka record would
// be larger than the brokers accept. Other routing problems are left to
// Route, which records them on the stored row as before.
func (s *Service) checkPublishable(p *provider.Provider, ev store.WebhookEvent, payload []byte) error {
	route, matched := p.Route(ev.EventType)
	if !matched || route.Skip {
		return nil
	}
	meta := &events.Metadata{Source: "webhook", CorrelationID: ev.EventID, APIVersion: events.SchemaVersion, PartnerID: ev.Provider}
	o, wf, task, err := s.routed(route, ev, payload, meta)
	if err != nil {
		return nil
	}
	var env events.Envelope
	if wf != nil {
		env, err = submit.WorkflowEvent(o, *wf)
	} else {
		env, err = submit.TaskEvent(o, *task)
	}
	if err != nil {
		return nil
	}
	if err := s.cfg.Emitter.CheckSize(env); err != nil {
		return fmt.Errorf("%w: %w", ErrBodyTooLarge, err)
	}
	return nil
}

// recordPartnerEvent writes the seed-000 IN document of a partner delivery.
func (s *Service) recordPartnerEvent(ctx context.Context, p *provider.Provider, ev store.WebhookEvent, payload []byte) error {
	md, ok, err := p.PartnerMetadata(payload)
	if err != nil {
		s.fail(ctx, ev, err)
		return fmt.Errorf("ingest: partner metadata: %w", err)
	}
	if !ok {
		return nil
	}
	_, err = s.cfg.Store.InsertPartnerEvent(ctx, store.PartnerEvent{
		ID:             events.DeriveID("", ev.EventID, "partner_event"),
		EventType:      ev.EventType,
		EventStatus:    partnerstatus.Success, // received and stored: the IN leg is done
		EventDirection: partnerstatus.DirectionIn,
		CreatedBy:      "webhook:" + p.Name,
		EntityMetadata: store.PartnerEntityMetadata{
			PartnerID: md.PartnerID, PartnerName: md.PartnerName, EntityID: md.EntityID, EntityType: md.EntityType,
		},
		EntityData: store.JSONDoc(payload),
	})
	if err != nil && !errors.Is(err, store.ErrDuplicate) {
		return fmt.Errorf("ingest: store partner event: %w", err)
	}
	return nil
}

// fail marks a webhook event failed with the reason, for the sweeper and
// the operators; routing errors caused by the event's content land here.
// The failed routing counts as a processing attempt (retry_count), so the
// sweeper's retries of it are bounded.
func (s *Service) fail(ctx context.Context, ev store.WebhookEvent, cause error) {
	err := s.cfg.Store.SetWebhookStatus(ctx, ev.EventID, webhookstatus.Processing, "")
	if err == nil {
		err = s.cfg.Store.SetWebhookStatus(ctx, ev.EventID, webhookstatus.Failed, cause.Error())
	}
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "could not mark webhook failed", "webhookEventId", ev.EventID, "error", err)
	}
}
