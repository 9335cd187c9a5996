package provider

import (
	"errors"
	"fmt"

	"github.com/streamops/streamops/internal/pii"
)

// Redacted replaces the whole value of a denied key or a RedactPaths path
// (pii.Redacted).
const Redacted = pii.Redacted

// DefaultDenylist are the keys scrubbed wherever they appear
// (pii.DefaultDenylist).
var DefaultDenylist = pii.DefaultDenylist

// Redact scrubs PII from a JSON document before it is stored, in one pass
// (see pii.Scrubber.Scrub): the value at each of paths and the value of
// every key anywhere in the document whose normalised name is in denylist
// become the string Redacted (an object or array value goes whole; a null
// stays null), and every email address, IBAN, payment card number and
// phone number inside the other strings becomes its pii.Patterns
// replacement ("[redacted:email]").
//
// A path is dot-separated ("data.object.customer_email"); a segment "*"
// matches every member of an object or element of an array, "#" every
// element of an array, a number one element; write a literal dot in a key
// as `\.`. A path that is not in the document scrubs nothing.
//
// Numbers, key order and whitespace keep the bytes that were sent. A body
// that is not a single JSON value is an error matching ErrInvalidPayload.
func Redact(body []byte, paths []string, denylist []string) ([]byte, error) {
	s, err := pii.New(paths, denylist)
	if err != nil {
		return nil, fmt.Errorf("webhook: %w", err)
	}
	return scrub(s, body)
}

// Redact scrubs body with DefaultDenylist and the provider's RedactPaths.
func (p *Provider) Redact(body []byte) ([]byte, error) {
	s, err := p.Scrubber()
	if err != nil {
		return nil, err
	}
	return scrub(s, body)
}

// Scrubber finds the personal data of the provider's payloads: the keys
// of DefaultDenylist, the provider's RedactPaths and the values of
// pii.Patterns.
func (p *Provider) Scrubber() (*pii.Scrubber, error) {
	if p.scrubber != nil {
		return p.scrubber, nil
	}
	s, err := pii.Default.WithPaths(p.RedactPaths...)
	if err != nil {
		return nil, fmt.Errorf("webhook: %w", err)
	}
	return s, nil
}

// InvalidPayload is err (a document that is not JSON, from a scrubber)
// as the sender's fault, matching ErrInvalidPayload.
func InvalidPayload(err error) error {
	if errors.Is(err, pii.ErrNotJSON) {
		return fmt.Errorf("%w: %w", ErrInvalidPayload, err)
	}
	return err
}

// scrub runs s on body, a body that is not JSON being the sender's fault.
func scrub(s *pii.Scrubber, body []byte) ([]byte, error) {
	out, err := s.Scrub(body)
	if err != nil {
		return nil, InvalidPayload(err)
	}
	return out, nil
}
