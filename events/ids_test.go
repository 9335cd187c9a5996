package events

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDeriveIDIsStablePerNameAndDistinctAcrossNames(t *testing.T) {
	a := DeriveID(EventIDPrefix, "webhook-1", "workflow.created")
	assert.Equal(t, a, DeriveID(EventIDPrefix, "webhook-1", "workflow.created"))
	assert.NotEqual(t, a, DeriveID(EventIDPrefix, "webhook-1", "webhook.received"))
	assert.NotEqual(t, DeriveID("", "ab", "c"), DeriveID("", "a", "bc"), "parts are separated, not concatenated")
	assert.Regexp(t, regexp.MustCompile(`^evt-[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), a)
}
