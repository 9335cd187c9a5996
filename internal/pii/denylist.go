package pii

import "strings"

// Redacted replaces the whole value of a denied key or a configured path.
const Redacted = "[REDACTED]"

// DefaultDenylist are the keys whose values are PII wherever they appear in
// a payload (seed 004: webhook_events.payload must hold none). Keys are
// compared normalised (see Scrubber), so "first_name" also covers
// firstName, First-Name and "first name". The list leans towards
// over-redaction: "name" also scrubs a product's or repository's name, and
// "login" a GitHub organisation's; structural keys (id, type, object,
// created, currency, country, city, state) are left alone, and a country
// or city inside an address goes with the address. Free text under any
// other key is scrubbed by value (Patterns); add a provider's RedactPaths
// for whatever else its senders put there.
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

// NormaliseKey lower-cases a key and drops '_', '-' and ' ', so snake_case,
// camelCase, kebab-case and spaced spellings of a denied key meet.
func NormaliseKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(k))
}

// maxFastKey is the longest key normalised without allocating; a longer
// one is no denied key's spelling but is still normalised the slow way.
const maxFastKey = 64

// normaliseInto normalises key (raw bytes) into buf, or reports false
// when it does not fit or is not ASCII.
func normaliseInto(buf *[maxFastKey]byte, key []byte) ([]byte, bool) {
	n := 0
	for _, c := range key {
		if c >= 0x80 || n == len(buf) {
			return nil, false
		}
		switch {
		case c == '_' || c == '-' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return buf[:n], true
}

// keyCategory says whether the member with key (raw bytes) is denied, and
// its category: a key of the scrubber's denylist, or one KeyCategory
// names by its ending.
func (s *Scrubber) keyCategory(key []byte) (Category, bool) {
	var buf [maxFastKey]byte
	k, ok := normaliseInto(&buf, key)
	if !ok {
		n := NormaliseKey(string(key))
		if c, ok := s.deny[n]; ok {
			return c, true
		}
		return suffixCategory(n)
	}
	if c, ok := s.deny[string(k)]; ok {
		return c, true
	}
	return suffixCategory(string(k))
}

// normalised is NormaliseKey of a raw key.
func normalised(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	return NormaliseKey(string(key))
}

// keyHas says whether the normalised key contains word.
func keyHas(key []byte, word string) bool {
	var buf [maxFastKey]byte
	k, ok := normaliseInto(&buf, key)
	if !ok {
		return strings.Contains(NormaliseKey(string(key)), word)
	}
	return strings.Contains(string(k), word)
}

// keyEnds says whether the normalised key ends with word.
func keyEnds(key []byte, word string) bool {
	var buf [maxFastKey]byte
	k, ok := normaliseInto(&buf, key)
	if !ok {
		return strings.HasSuffix(NormaliseKey(string(key)), word)
	}
	return strings.HasSuffix(string(k), word)
}
