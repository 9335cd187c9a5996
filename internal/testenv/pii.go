package testenv

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Personal is one person's data as a partner's answer, a provider's error
// or a refused record quotes it: an email, a phone number, a card number
// and an IBAN, each in a form pii.ScrubText finds.
var Personal = []string{"jane.doe@example.com", "+44 20 7946 0958", "4242 4242 4242 4242", "DE89 3704 0044 0532 0130 00"}

// PersonalText is a sentence quoting every datum of Personal.
var PersonalText = "customer " + strings.Join(Personal, ", ")

// AssertNoneInClear fails tb for each datum of Personal that a copy holds
// in clear: a string as it is, anything else as its JSON. copies are
// named by where StreamOps keeps them.
func AssertNoneInClear(tb testing.TB, copies map[string]any) {
	tb.Helper()
	for where, copy := range copies {
		text, ok := copy.(string)
		if !ok {
			raw, err := json.Marshal(copy)
			require.NoError(tb, err, where)
			text = string(raw)
		}
		for _, clear := range Personal {
			assert.NotContains(tb, text, clear, where)
		}
	}
}
