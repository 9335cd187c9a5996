package outbox

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/subscribe"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/vault"
)

// TargetKafka is the target_provider of entries whose payload is an event
// envelope to publish.
const TargetKafka = "kafka"

// KafkaDeliverer publishes entries whose payload is a stored envelope, all
// of a batch with one flush.
type KafkaDeliverer struct {
	Publisher emit.Publisher
}

// DeliverAll publishes the envelopes and returns one error (or nil) per entry.
func (k KafkaDeliverer) DeliverAll(ctx context.Context, entries []Entry) []error {
	errs := make([]error, len(entries))
	var envs []events.Envelope
	idx := map[string][]int{}
	for i, e := range entries {
		env, err := events.Decode(e.Payload)
		if err != nil {
			errs[i] = &DeliveryError{Retryable: false, Err: fmt.Errorf("payload is not a valid event: %w", err)}
			continue
		}
		envs = append(envs, env)
		idx[env.EventID] = append(idx[env.EventID], i)
	}
	if len(envs) == 0 {
		return errs
	}
	err := k.Publisher.Publish(ctx, envs...)
	if err == nil {
		return errs
	}
	failed := emit.Unpublished(err, envs)
	for _, env := range envs {
		if failed[env.EventID] {
			for _, i := range idx[env.EventID] {
				errs[i] = &DeliveryError{Retryable: true, Err: err}
			}
		}
	}
	return errs
}

// Partner is a partner endpoint that receives deliveries.
type Partner struct {
	// ID is the partner id, used as the entries' target_provider.
	ID string `json:"id"`
	// Name is the human-readable name recorded in partner_events.
	Name string `json:"name"`
	// URL receives the POSTs.
	URL string `json:"url"`
	// RateLimit is how many deliveries per second the partner accepts
	// (fractions allowed); nil is unlimited. Every relay instance shares
	// it through the store.
	RateLimit *float64 `json:"rateLimit,omitempty"`
	// MaxInFlight is how many deliveries may be in flight to the partner
	// at once, across relay instances; nil is unlimited.
	MaxInFlight *int `json:"maxInFlight,omitempty"`
	// ClearPersonalData are the categories of personal data (pii.Category
	// names such as email or phone, or "all") the partner receives in
	// clear: the relay opens those references as it sends, recording each
	// resolution. Default none: the partner receives references.
	ClearPersonalData []string `json:"clearPersonalData,omitempty"`
	// Subscriptions are the event types (and payload filters) the partner
	// receives whatever the workflows send it: every stored event that
	// matches one is fanned out to it. None: only what deliver steps send.
	Subscriptions []subscribe.Subscription `json:"subscriptions,omitempty"`
	// Disabled stops every send to the partner (its entries wait, deferred
	// by DisabledRecheck at a time) until it is enabled again;
	// DisabledReason says why.
	Disabled       bool   `json:"disabled,omitempty"`
	DisabledReason string `json:"disabledReason,omitempty"`
}

// AllClearPersonalData in Partner.ClearPersonalData is every category.
const AllClearPersonalData = "all"

// receivesClear says whether p receives category c in clear.
func (p Partner) receivesClear(c pii.Category) bool {
	for _, x := range p.ClearPersonalData {
		if x == AllClearPersonalData || x == string(c) {
			return true
		}
	}
	return false
}

// Resolver opens personal-data references (vault.Vault): those of doc
// whose category allow accepts, each resolution recorded with p.
type Resolver interface {
	ResolveDocument(ctx context.Context, doc []byte, p vault.Purpose, allow func(pii.Category) bool) ([]byte, error)
}

// PartnerDeliverer POSTs entries to partner endpoints, signed with Standard
// Webhooks headers (webhook-id = outbox id).
type PartnerDeliverer struct {
	// Client sends the requests; its own timeout is not relied on.
	Client *http.Client
	// Secrets gives each partner's signing secrets; every one signs each
	// delivery (provider.SignStandard), so a partner can rotate its secret.
	Secrets provider.SecretSource
	// Timeout bounds one delivery. Default 10 s.
	Timeout time.Duration
	// Now is the signing clock. Default time.Now.
	Now func() time.Time
	// Personal opens the references a partner receives in clear
	// (Partner.ClearPersonalData); nil sends every reference as stored.
	Personal Resolver
}

// Attempt is what one delivery attempt to a partner did, as the entry's
// delivery log keeps it.
type Attempt struct {
	// At is when it started (the relay's clock), Duration how long it took.
	At       time.Time
	Duration time.Duration
	// StatusCode is the partner's answer; 0 when none came.
	StatusCode int
	// Err is why it failed; nil when delivered.
	Err error
	// SpanID is the CLIENT span that sent the request, the parent the
	// partner saw in its traceparent; "" when no request was sent.
	SpanID string
	// RetryAfter is the answer's Retry-After header as sent; "" when
	// none.
	RetryAfter string
	// Body is the first KiB of the answer's body as BodyExcerpt shows it;
	// "" when none came.
	Body string
}

// Deliver sends one entry to p.
func (d PartnerDeliverer) Deliver(ctx context.Context, p Partner, e Entry) error {
	return d.Send(ctx, p, e).Err
}

// clientSpan is the span options of a partner request: one CLIENT span.
var clientSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

// Send sends one entry to p as one signed POST, under a CLIENT span of
// ctx's trace ("POST <partner>") whose context the request carries as its
// traceparent header, and says what the attempt did. The Standard
// Webhooks signature covers the id, the timestamp and the body only, so
// the trace headers leave it valid.
func (d PartnerDeliverer) Send(ctx context.Context, p Partner, e Entry) (a Attempt) {
	start := time.Now()
	defer func() { a.Duration = time.Since(start) }()
	secrets, err := d.Secrets.Secrets(ctx, p.ID)
	if err != nil {
		a.Err = &DeliveryError{Retryable: true, Err: fmt.Errorf("partner %s secrets: %w", p.ID, err)}
		return a
	}
	if len(secrets) == 0 {
		a.Err = &DeliveryError{Retryable: true, Err: fmt.Errorf("partner %s has no signing secret configured", p.ID)}
		return a
	}
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	body := []byte(e.Payload)
	if !json.Valid(body) {
		a.Err = &DeliveryError{Retryable: false, Err: fmt.Errorf("payload is not JSON")}
		return a
	}
	if len(p.ClearPersonalData) > 0 && d.Personal != nil {
		why := fmt.Sprintf("partner %s receives %s in clear", p.ID, strings.Join(p.ClearPersonalData, ", "))
		if body, err = d.Personal.ResolveDocument(ctx, body, vault.Purpose{Who: "outbox-relay", Why: why, Ref: e.ID}, p.receivesClear); err != nil {
			a.Err = &DeliveryError{Retryable: true, Err: fmt.Errorf("open the personal data partner %s receives in clear: %w", p.ID, err)}
			return a
		}
	}
	h, err := provider.SignStandard(body, secrets, e.ID, now())
	if err != nil {
		a.Err = &DeliveryError{Retryable: true, Err: err}
		return a
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	ctx, span := tracing.Start(ctx, "POST "+p.ID, clientSpan...)
	defer func() { endClientSpan(span, a) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(body))
	if err != nil {
		a.Err = &DeliveryError{Retryable: false, Err: withoutURLSecrets(err)}
		return a
	}
	if span.IsRecording() {
		span.SetAttributes(requestAttributes(req.URL)...)
	} else {
		ctx = unrecordedChild(ctx)
		req = req.WithContext(ctx)
	}
	a.SpanID = tracing.SpanID(ctx)
	req.Header = h
	req.Header.Set("User-Agent", "StreamOps-Outbox/1")
	tp, ts := tracing.Traceparent(ctx)
	req.Header.Set(tracing.TraceparentHeader, tp)
	if ts != "" {
		req.Header.Set(tracing.TracestateHeader, ts)
	}
	client := d.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		a.Err = transportError(err)
		return a
	}
	defer resp.Body.Close()
	a.StatusCode, a.RetryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	a.Body = readExcerpt(resp.Body)
	a.Err = statusError(resp.StatusCode, fmt.Sprintf("partner %s answered %q", p.ID, strings.TrimSpace(a.Body)))
	return a
}

// timeout is how long one delivery may take.
func (d PartnerDeliverer) timeout() time.Duration {
	if d.Timeout == 0 {
		return 10 * time.Second
	}
	return d.Timeout
}

// unrecordedChild is ctx with a span id of its own: with tracing off,
// tracing.Start's span is the parent's, and each attempt's request is
// still told apart by the partner (and the delivery log) by its span id.
func unrecordedChild(ctx context.Context) context.Context {
	sc := trace.SpanContextFromContext(ctx)
	var sid trace.SpanID
	binary.BigEndian.PutUint64(sid[:], rand.Uint64()|1)
	return trace.ContextWithSpanContext(ctx, sc.WithSpanID(sid))
}

// requestAttributes are the OpenTelemetry HTTP client attributes of a POST
// to u; url.full is u without its credentials, as GET /api/partners shows a
// delivery URL (provider.RedactURL).
func requestAttributes(u *url.URL) []attribute.KeyValue {
	port := 443
	if u.Scheme == "http" {
		port = 80
	}
	if p, err := strconv.Atoi(u.Port()); err == nil {
		port = p
	}
	return []attribute.KeyValue{semconv.HTTPRequestMethodPost, semconv.URLFull(provider.RedactURL(u.String())),
		semconv.ServerAddress(u.Hostname()), semconv.ServerPort(port)}
}

// endClientSpan ends a partner request's span with what the attempt did:
// the answer's status code, and for a failure its error.type (the status
// code, "timeout" or the transport error's type).
func endClientSpan(span trace.Span, a Attempt) {
	if span.IsRecording() {
		if a.StatusCode != 0 {
			span.SetAttributes(semconv.HTTPResponseStatusCode(a.StatusCode))
		}
		if a.Err != nil {
			span.SetAttributes(semconv.ErrorTypeKey.String(errorType(a)))
		}
	}
	tracing.End(span, a.Err)
}

// errorType is the error.type of a failed attempt.
func errorType(a Attempt) string {
	if a.StatusCode != 0 {
		return strconv.Itoa(a.StatusCode)
	}
	if errors.Is(a.Err, context.DeadlineExceeded) {
		return "timeout"
	}
	var ue *url.Error
	if errors.As(a.Err, &ue) {
		if ue.Timeout() {
			return "timeout"
		}
		return fmt.Sprintf("%T", ue.Err)
	}
	return "_OTHER"
}
