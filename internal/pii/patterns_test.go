package pii_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/pii"
)

// patternCases are the positives and negatives of every pattern: text in,
// text out (unchanged for a negative).
var patternCases = []struct {
	pattern string // the pattern a positive is found by; "" for a negative
	in      string
	want    string
}{
	// Email addresses.
	{"email", "jane.doe@example.com", "[redacted:email]"},
	{"email", "mail jane.doe+billing@mail.example.co.uk today", "mail [redacted:email] today"},
	{"email", "mailto:J_Doe-99@Example.COM.", "mailto:[redacted:email]."},
	{"email", "<jane@example.com>, bob@example.org", "<[redacted:email]>, [redacted:email]"},
	{"", "@handle and user@localhost", "@handle and user@localhost"},
	{"", "a@b.c and x@1.23 and dev@host.42", "a@b.c and x@1.23 and dev@host.42"},
	{"", "me@ and @example.com", "me@ and @example.com"},

	// Phone numbers: international, E.164, national formats.
	{"phone", "call +1 415 555 0100 now", "call [redacted:phone] now"},
	{"phone", "+15555550123", "[redacted:phone]"},
	{"phone", "+44 (0) 20 7946 0958", "[redacted:phone]"},
	{"phone", "+49-30-12345678", "[redacted:phone]"},
	{"phone", "tel:+33612345678", "tel:[redacted:phone]"},
	{"phone", "(415) 555-0100", "[redacted:phone]"},
	{"phone", "(415)555-0100", "[redacted:phone]"},
	{"phone", "415-555-0100", "[redacted:phone]"},
	{"phone", "415.555.0100", "[redacted:phone]"},
	{"phone", "1-800-555-0100", "[redacted:phone]"},
	{"phone", "020 7946 0958", "[redacted:phone]"},
	{"phone", "Tel. 06 12 34 56 78.", "Tel. [redacted:phone]."},
	{"phone", "0049 30 12345678", "[redacted:phone]"},
	{"", "1655292809853", "1655292809853"}, // unix millis
	{"", "1736899200", "1736899200"},       // unix seconds
	{"", "cus_123", "cus_123"},
	{"", "cus_1234567890123", "cus_1234567890123"},
	{"", "pm_1QeR4qLkdIwHu7ixV3cW8yTn", "pm_1QeR4qLkdIwHu7ixV3cW8yTn"},
	{"", "2024-06-15", "2024-06-15"},
	{"", "2024-06-15T12:34:56.789Z", "2024-06-15T12:34:56.789Z"},
	{"", "2024-06-15 12:34:56", "2024-06-15 12:34:56"},
	{"", "15.06.2024 12:30", "15.06.2024 12:30"},
	{"", "1f81eb52-5198-4599-803e-771906343485", "1f81eb52-5198-4599-803e-771906343485"},
	{"", "7C1A2B3D-0001", "7C1A2B3D-0001"},
	{"", "total 1 234 567 890 EUR", "total 1 234 567 890 EUR"},
	{"", "1.234.567.890,12", "1.234.567.890,12"},
	{"", "1,234,567.89", "1,234,567.89"},
	{"", "129.90", "129.90"},
	{"", "192.168.100.200", "192.168.100.200"},
	{"", "ISBN 978-3-16-148410-0", "ISBN 978-3-16-148410-0"},
	{"", "v10.15.7", "v10.15.7"},
	{"", "+100 points", "+100 points"},
	{"", "555-0100", "555-0100"},
	{"", "order-415-555-0100", "order-415-555-0100"},
	{"", "/v1/charges/4155550100123", "/v1/charges/4155550100123"},

	// Payment card numbers (Luhn-valid), compact, spaced, dashed.
	{"card", "4242424242424242", "[redacted:card]"},
	{"card", "card 4242 4242 4242 4242 exp 12/34", "card [redacted:card] exp 12/34"},
	{"card", "5555-5555-5555-4444", "[redacted:card]"},
	{"card", "378282246310005", "[redacted:card]"},
	{"card", "3782 822463 10005", "[redacted:card]"},
	{"card", "6011111111111117", "[redacted:card]"},
	{"", "4242424242424241", "4242424242424241"},       // Luhn-invalid
	{"", "4242 4242 4242 4241", "4242 4242 4242 4241"}, // Luhn-invalid
	{"", "1655292809853000", "1655292809853000"},       // unix micros
	{"", "4242-4242 4242-4242", "4242-4242 4242-4242"}, // mixed separators
	{"", "tok_4242424242424242", "tok_4242424242424242"},

	// IP addresses a person's device could have; a machine's are left.
	{"ip", "from 203.0.113.7 at noon", "from [redacted:ip] at noon"},
	{"ip", "dial 198.51.100.23:443", "dial [redacted:ip]:443"},
	{"ip", "client 2001:db8::8a2e:370:7334.", "client [redacted:ip]."},
	{"ip", "[2001:0db8:85a3:0000:0000:8a2e:0370:7334]:8080", "[[redacted:ip]]:8080"},
	{"ip", "::ffff:203.0.113.7", "[redacted:ip]"},
	{"", "127.0.0.1 and ::1 and 0.0.0.0", "127.0.0.1 and ::1 and 0.0.0.0"},
	{"", "10.0.0.1:27017, 172.16.4.2, 169.254.1.1, fd00::1", "10.0.0.1:27017, 172.16.4.2, 169.254.1.1, fd00::1"},
	{"", "mask 255.255.255.0", "mask 255.255.255.0"},
	{"", "v1.2.3.4 and 1.2.3 and 1.2.3.4.5", "v1.2.3.4 and 1.2.3 and 1.2.3.4.5"},
	{"", "at 12:34:56 on 15.06.2024", "at 12:34:56 on 15.06.2024"},
	{"", "mac 00:1A:2B:3C:4D:5E", "mac 00:1A:2B:3C:4D:5E"},
	{"", "std::vector and a::b", "std::vector and a::b"},

	// IBANs (mod 97), compact and printed in groups of four.
	{"iban", "DE89370400440532013000", "[redacted:iban]"},
	{"iban", "DE89 3704 0044 0532 0130 00", "[redacted:iban]"},
	{"iban", "IBAN: GB29 NWBK 6016 1331 9268 19, BIC NWBKGB2L", "IBAN: [redacted:iban], BIC NWBKGB2L"},
	{"iban", "FR1420041010050500013M02606", "[redacted:iban]"},
	{"iban", "pay to NO9386011117947 please", "pay to [redacted:iban] please"},
	{"", "DE89370400440532013001", "DE89370400440532013001"},                                     // mod-97-invalid
	{"", "DE89 3704 0044 0532 0130 01", "DE89 3704 0044 0532 0130 01"},                           // mod-97-invalid
	{"", "XDE89370400440532013000", "XDE89370400440532013000"},                                   // glued
	{"", "DE123456789", "DE123456789"},                                                           // a VAT id
	{"", "AB12CDEF34567890ABCDEF1234567890ABCDEF12", "AB12CDEF34567890ABCDEF1234567890ABCDEF12"}, // too long
}

func TestPatterns(t *testing.T) {
	names := map[string]bool{}
	for _, p := range pii.Patterns {
		names[p.Name] = true
		assert.Equal(t, "[redacted:"+p.Name+"]", p.Replacement, "a replacement says what was removed")
	}
	tested := map[string]bool{}
	for _, tc := range patternCases {
		t.Run(tc.in, func(t *testing.T) {
			got, changed := pii.ScrubText(tc.in)

			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.pattern != "", changed)
			if tc.pattern != "" {
				require.True(t, names[tc.pattern], "no pattern %q", tc.pattern)
				assert.Contains(t, got, "[redacted:"+tc.pattern+"]")
				tested[tc.pattern] = true
			}
		})
	}
	for name := range names {
		assert.True(t, tested[name], "pattern %q has no positive case", name)
	}
}

func TestReplacementsMatchNoPattern(t *testing.T) {
	for _, p := range pii.Patterns {
		for _, q := range pii.Patterns {
			if start, _ := q.Find(p.Replacement, 0); start >= 0 {
				t.Errorf("%s's replacement %q is found by %s", p.Name, p.Replacement, q.Name)
			}
		}
	}
}
