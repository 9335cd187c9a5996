package provider

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Column sizes of webhook_events (seed 004) that Identify enforces, so a
// value that cannot be stored is refused at the door.
const (
	MaxProviderEventIDLen = 500 // provider_event_id VARCHAR(500)
	MaxEventTypeLen       = 100 // event_type VARCHAR(100)
)

// ErrInvalidPayload matches every *FieldError and a body that is not JSON:
// the delivery is authentic but unusable. The HTTP adapter answers 400.
var ErrInvalidPayload = errors.New("webhook: invalid payload")

// FieldError says which value of a delivery is missing or unusable and
// where it was looked for. It never quotes the value.
type FieldError struct {
	// Provider is the provider's name, "" outside a provider's context.
	Provider string
	// Field is what was being read: "provider_event_id", "event_type",
	// "entity_id", "task data recipientId".
	Field string
	// Source is where it was looked for.
	Source Field
	// Reason is what is wrong: "is missing", "is empty", "is an object, …".
	Reason string
}

// Error reads `webhook: stripe: provider_event_id: body field "id" is missing`.
func (e *FieldError) Error() string {
	msg := fmt.Sprintf("%s: %s %s", e.Field, e.Source, e.Reason)
	if e.Provider != "" {
		msg = e.Provider + ": " + msg
	}
	return "webhook: " + msg
}

// Is reports whether target is ErrInvalidPayload.
func (e *FieldError) Is(target error) bool { return target == ErrInvalidPayload }

// Identify reads the delivery's provider_event_id and event_type from where
// the provider puts them (see Provider.EventID and EventType). Call it after
// Verify. A value that is absent, empty, not a string or number, or too long
// for its webhook_events column is a *FieldError.
func (p *Provider) Identify(h http.Header, body []byte) (providerEventID, eventType string, err error) {
	if providerEventID, err = p.read(h, body, "provider_event_id", p.EventID, MaxProviderEventIDLen); err != nil {
		return "", "", err
	}
	if eventType, err = p.read(h, body, "event_type", p.EventType, MaxEventTypeLen); err != nil {
		return "", "", err
	}
	return providerEventID, eventType, nil
}

// read returns the scalar at src as a string, at most maxLen characters.
func (p *Provider) read(h http.Header, body []byte, name string, src Field, maxLen int) (string, error) {
	fail := func(format string, args ...any) error {
		return &FieldError{Provider: p.Name, Field: name, Source: src, Reason: fmt.Sprintf(format, args...)}
	}
	var v string
	if src.Header != "" {
		if v = p.header(h, src.Header); v == "" {
			return "", fail("is missing")
		}
	} else {
		var err error
		if v, err = scalarAt(body, src.Path); err != nil {
			return "", fail("%v", err)
		}
	}
	if n := utf8.RuneCountInString(v); n > maxLen {
		return "", fail("is %d characters, longer than %d", n, maxLen)
	}
	return v, nil
}

// header reads a header the provider's sender sets, trimmed. A Standard
// Webhooks sender may use the svix-* names for the webhook-* headers, so
// there a webhook-* name is read in the family the delivery uses.
func (p *Provider) header(h http.Header, name string) string {
	if sc, _ := lookupScheme(p.Signature.Scheme); sc.header != nil {
		name = sc.header(h, name)
	}
	return strings.TrimSpace(h.Get(name))
}

// scalarAt returns the string or number at a gjson path of a JSON body; a
// number keeps its JSON spelling.
func scalarAt(body []byte, path string) (string, error) {
	if !gjson.ValidBytes(body) {
		return "", errors.New("cannot be read: the body is not JSON")
	}
	v := gjson.GetBytes(body, path)
	switch {
	case !v.Exists():
		return "", errors.New("is missing")
	case v.Type == gjson.String && strings.TrimSpace(v.Str) == "":
		return "", errors.New("is empty")
	case v.Type == gjson.String:
		return strings.TrimSpace(v.Str), nil
	case v.Type == gjson.Number:
		return v.Raw, nil
	case v.IsObject():
		return "", errors.New("is an object, want a string or number")
	case v.IsArray():
		return "", errors.New("is an array, want a string or number")
	}
	return "", fmt.Errorf("is %s, want a string or number", strings.ToLower(v.Type.String()))
}
