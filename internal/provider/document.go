package provider

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"

	"github.com/streamops/streamops/internal/jsonbody"
)

// A sender may post application/x-www-form-urlencoded instead of JSON
// (GitHub can be set to): the event's JSON is then the value of the form
// field its scheme names (scheme.formField), and the signature still
// covers the raw body.
const (
	formContentType  = "application/x-www-form-urlencoded"
	contentTypeField = "Content-Type"
)

// FormError says why a form-encoded delivery carries no usable event: the
// body is not a well-formed form, or its payload field is missing, empty or
// repeated. It matches ErrInvalidPayload (400); Field names the form field.
type FormError struct {
	// Provider is the provider's name.
	Provider string
	// Field is the form field the event is read from ("payload").
	Field string
	// Reason says what is wrong.
	Reason string
}

// Error reads `webhook: github: form body (application/x-www-form-urlencoded): <reason>`.
func (e *FormError) Error() string {
	return fmt.Sprintf("webhook: %s: form body (%s): %s", e.Provider, formContentType, e.Reason)
}

// Is reports whether target is ErrInvalidPayload.
func (e *FormError) Is(target error) bool { return target == ErrInvalidPayload }

// Document returns the JSON event a verified delivery carries: the body
// itself or, for a provider of the github scheme whose Content-Type is
// application/x-www-form-urlencoded, the decoded "payload" form field (the
// form field of a scheme that has one).
// Call it after Verify, which checks the raw body, and give its result, not
// the body, to Identify and Redact, and store that: everything after the
// signature reads this one document. It is checked to be exactly one JSON
// value without a repeated key (jsonbody.Check), so no two readers of it can
// see different values. Errors match ErrInvalidPayload or jsonbody.ErrInvalid
// (both 400); a repeated key is a *jsonbody.DuplicateKeyError.
func (p *Provider) Document(h http.Header, body []byte) ([]byte, error) {
	doc := body
	if sc, _ := lookupScheme(p.Signature.Scheme); sc.formField != "" && isForm(h) {
		var err error
		if doc, err = p.formPayload(body, sc.formField); err != nil {
			return nil, err
		}
		if err := jsonbody.Check(doc); err != nil {
			return nil, fmt.Errorf("webhook: %s: form field %q: %w", p.Name, sc.formField, err)
		}
		return doc, nil
	}
	if err := jsonbody.Check(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// isForm reports whether the delivery's Content-Type is a urlencoded form
// (parameters such as charset aside). Any other type, or none, is read as
// JSON, as before GitHub's form deliveries were accepted.
func isForm(h http.Header) bool {
	mediaType, _, err := mime.ParseMediaType(h.Get(contentTypeField))
	return err == nil && mediaType == formContentType
}

// formPayload decodes a form body and returns its one field named field.
// A body url.ParseQuery refuses, a field missing, empty or given twice
// (which value would be the event?) is a *FormError.
func (p *Provider) formPayload(body []byte, field string) ([]byte, error) {
	fail := func(format string, args ...any) error {
		return &FormError{Provider: p.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fail("not a well-formed form: %v", err)
	}
	values := form[field]
	switch {
	case len(values) == 0:
		return nil, fail("has no %q field; GitHub sends the event's JSON there", field)
	case len(values) > 1:
		return nil, fail("has the %q field %d times; send it once", field, len(values))
	case values[0] == "":
		return nil, fail("the %q field is empty", field)
	}
	return []byte(values[0]), nil
}
