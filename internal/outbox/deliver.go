package outbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/provider"
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
}

// PartnerDeliverer POSTs entries to partner endpoints, signed with Standard
// Webhooks headers (webhook-id = outbox id).
type PartnerDeliverer struct {
	// Client sends the requests; its own timeout is not relied on.
	Client *http.Client
	// Secrets gives each partner's signing secrets; the first is used.
	Secrets provider.SecretSource
	// Timeout bounds one delivery. Default 10 s.
	Timeout time.Duration
	// Now is the signing clock. Default time.Now.
	Now func() time.Time
}

// Deliver sends one entry to p.
func (d PartnerDeliverer) Deliver(ctx context.Context, p Partner, e Entry) error {
	secrets, err := d.Secrets.Secrets(ctx, p.ID)
	if err != nil {
		return &DeliveryError{Retryable: true, Err: fmt.Errorf("partner %s secrets: %w", p.ID, err)}
	}
	if len(secrets) == 0 {
		return &DeliveryError{Retryable: true, Err: fmt.Errorf("partner %s has no signing secret configured", p.ID)}
	}
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	body := []byte(e.Payload)
	if !json.Valid(body) {
		return &DeliveryError{Retryable: false, Err: fmt.Errorf("payload is not JSON")}
	}
	h, err := provider.SignStandard(body, secrets[0], e.ID, now())
	if err != nil {
		return &DeliveryError{Retryable: true, Err: err}
	}
	timeout := d.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(body))
	if err != nil {
		return &DeliveryError{Retryable: false, Err: err}
	}
	req.Header = h
	req.Header.Set("User-Agent", "StreamOps-Outbox/1")
	client := d.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return transportError(err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return statusError(resp.StatusCode, fmt.Sprintf("partner %s answered %q", p.ID, bytes.TrimSpace(snippet)))
}
