package storetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// testSearchAnswersAsEachEngineIsDocumented pins the difference
// docs/conformance.md states between the engines' search: MongoDB's $text
// matches whole (stemmed) words, the embedded engine's scan matches any
// substring; a whole word is found by both.
func testSearchAnswersAsEachEngineIsDocumented(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	env := envelope(events.TaskCreated, clock.Now(), map[string]any{
		"taskId": "task-search", "type": "email_notification", "data": map[string]any{}, "retryCount": 0, "maxRetries": 3,
		"createdAt": events.At(clock.Now()).String(),
	}, &events.Metadata{Source: "event-processor"})
	require.NoError(t, s.InsertEvent(ctx(t), env))
	text := Has(TextIndex)
	for _, tc := range []struct {
		query           string
		embedded, mongo bool
	}{
		{"event-processor", true, true}, // the whole value
		{"processor", true, true},       // a whole word of it
		{"proc", true, false},           // part of a word: the scan only
		{"processors", false, true},     // another form of the word: $text's stemming only
	} {
		got, err := s.SearchEvents(ctx(t), tc.query, "", 10)
		require.NoError(t, err)
		want := tc.embedded
		if text {
			want = tc.mongo
		}
		assert.Equal(t, want, len(got) == 1, "%q on the %s engine", tc.query, Engine())
	}
}
