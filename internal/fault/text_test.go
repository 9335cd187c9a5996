package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/fault"
)

// TestTextKeepsNoPersonalDatumAnErrorQuotes: what an error quotes from
// outside is replaced, whatever wraps it; the rest of its text is kept.
func TestTextKeepsNoPersonalDatumAnErrorQuotes(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"nothing to scrub", errors.New("HTTP 503: partner acme answered \"busy\""), "HTTP 503: partner acme answered \"busy\""},
		{"an email an SES error quotes", errors.New("MessageRejected: Email address is not verified: jane.doe@example.com"),
			"MessageRejected: Email address is not verified: [redacted:email]"},
		{"wrapped: phone, card and IBAN", fmt.Errorf("step deliver: %w",
			errors.New("call +44 20 7946 0958, card 4242 4242 4242 4242, IBAN DE89 3704 0044 0532 0130 00")),
			"step deliver: call [redacted:phone], card [redacted:card], IBAN [redacted:iban]"},
		{"a classified error", fault.Permanent("INVALID_RECIPIENT", "recipient %q refused", "bob@example.org"),
			"INVALID_RECIPIENT: recipient \"[redacted:email]\" refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, fault.Text(tc.err))
			if tc.err != nil {
				assert.Equal(t, tc.want, fault.Scrubbed(tc.err.Error()), "Scrubbed is Text of the message")
			}
		})
	}
}
