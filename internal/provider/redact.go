package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Redacted replaces every scrubbed value.
const Redacted = "[REDACTED]"

// DefaultDenylist are the keys whose values are PII wherever they appear in
// a payload (seed 004: webhook_events.payload must hold none). Keys are
// compared normalised (see Redact), so "first_name" also covers firstName,
// First-Name and "first name". The list leans towards over-redaction:
// "name" also scrubs a product's or repository's name, and "login" a
// GitHub organisation's; structural keys (id, type, object, created,
// currency, country, city, state) are left alone, and a country or city
// inside an address goes with the address. Free-form maps such as Stripe's
// metadata are scrubbed only key by key: add a provider's RedactPaths for
// whatever else its senders put there.
var DefaultDenylist = []string{
	// Contact.
	"email", "email_address", "receipt_email", "customer_email", "billing_email",
	"phone", "phone_number", "mobile", "customer_phone",
	// Names and handles.
	"name", "first_name", "last_name", "middle_name", "full_name", "given_name", "family_name",
	"display_name", "customer_name", "account_holder_name", "cardholder_name",
	"username", "login",
	// Addresses (the whole object goes).
	"address", "billing_address", "shipping_address", "customer_address",
	"line1", "line2", "street", "postal_code", "zip", "zip_code",
	"shipping", "customer_shipping", "billing_details",
	// Network.
	"ip", "ip_address", "client_ip",
	// Government and tax ids, birth dates.
	"ssn", "ssn_last_4", "tax_id", "tax_ids", "customer_tax_ids", "vat_id",
	"national_id", "id_number", "personal_id_number", "passport_number",
	"date_of_birth", "dob", "birth_date",
	// Payment instruments and credentials.
	"card_number", "cvc", "cvv", "iban", "account_number", "routing_number", "password",
}

// Redact scrubs PII from a JSON document before it is stored: the value at
// each of paths, and the value of every key anywhere in the document whose
// normalised name is in denylist, become the string Redacted (an object or
// array value goes whole). A null stays null, since it discloses nothing.
//
// A name is normalised by lower-casing it and dropping '_', '-' and ' ', so
// snake_case, camelCase, kebab-case and spaced spellings meet. A path is
// dot-separated ("data.object.customer_email"); a segment "*" matches every
// member of an object or element of an array, "#" every element of an
// array, a number one element; write a literal dot in a key as `\.`. A path
// that is not in the document scrubs nothing.
//
// Numbers keep their exact spelling; object keys come out sorted. A body
// that is not a single JSON value is an error matching ErrInvalidPayload.
func Redact(body []byte, paths []string, denylist []string) ([]byte, error) {
	parsed := make([][]string, 0, len(paths))
	for _, p := range paths {
		segs, err := parseRedactPath(p)
		if err != nil {
			return nil, fmt.Errorf("webhook: redact path %q: %w", p, err)
		}
		parsed = append(parsed, segs)
	}
	doc, err := decodeJSON(body)
	if err != nil {
		return nil, err
	}
	for _, segs := range parsed {
		doc = redactPath(doc, segs)
	}
	deny := make(map[string]bool, len(denylist))
	for _, k := range denylist {
		deny[normaliseKey(k)] = true
	}
	doc = redactKeys(doc, deny)

	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // keep "<" and "&" as sent; this is storage, not HTML
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("webhook: redact: %w", err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// Redact scrubs body with DefaultDenylist and the provider's RedactPaths.
func (p *Provider) Redact(body []byte) ([]byte, error) {
	return Redact(body, p.RedactPaths, DefaultDenylist)
}

// decodeJSON reads exactly one JSON value, numbers as json.Number.
func decodeJSON(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: body is not JSON: %v", ErrInvalidPayload, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: body is not JSON: data after the first value", ErrInvalidPayload)
	}
	return doc, nil
}

// normaliseKey lower-cases a key and drops '_', '-' and ' '.
func normaliseKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(k))
}

// parseRedactPath splits a dot path into its segments, honouring `\.`.
func parseRedactPath(path string) ([]string, error) {
	if path == "" {
		return nil, errors.New("path is empty")
	}
	var segs []string
	var seg strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path) && path[i+1] == '.':
			seg.WriteByte('.')
			i++
		case c == '.':
			segs = append(segs, seg.String())
			seg.Reset()
		default:
			seg.WriteByte(c)
		}
	}
	segs = append(segs, seg.String())
	for i, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("segment %d of path %q is empty", i+1, path)
		}
	}
	return segs, nil
}

// redactPath scrubs the values segs reaches from v.
func redactPath(v any, segs []string) any {
	if len(segs) == 0 {
		return redactValue(v)
	}
	seg, rest := segs[0], segs[1:]
	switch node := v.(type) {
	case map[string]any:
		if seg == "*" {
			for k, child := range node {
				node[k] = redactPath(child, rest)
			}
		} else if child, ok := node[seg]; ok {
			node[seg] = redactPath(child, rest)
		}
	case []any:
		if seg == "*" || seg == "#" {
			for i, child := range node {
				node[i] = redactPath(child, rest)
			}
		} else if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(node) {
			node[i] = redactPath(node[i], rest)
		}
	}
	return v
}

// redactKeys scrubs the value of every denied key under v.
func redactKeys(v any, deny map[string]bool) any {
	switch node := v.(type) {
	case map[string]any:
		for k, child := range node {
			if deny[normaliseKey(k)] {
				node[k] = redactValue(child)
			} else {
				node[k] = redactKeys(child, deny)
			}
		}
	case []any:
		for i, child := range node {
			node[i] = redactKeys(child, deny)
		}
	}
	return v
}

// redactValue is what a scrubbed value becomes.
func redactValue(v any) any {
	if v == nil {
		return nil
	}
	return Redacted
}
