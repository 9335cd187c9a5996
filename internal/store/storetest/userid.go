package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// testUserIDIsReadBackAsWritten: seed 003's metadata.userId is "string |
// null", and its examples write `"userId": null`. An event stored with a
// null, an absent or a string userId is read back the same way by every
// path that rebuilds an envelope from the store (a read, the sweeper's
// republish, a replay's find, an export), whatever path stored it.
func testUserIDIsReadBackAsWritten(t *testing.T, open Opener) {
	tests := []struct {
		name   string
		userID events.NullString
		want   string // the envelope's metadata as JSON
		doc    any    // metadata.user_id in an export; nil with absent false is null
		absent bool
	}{
		{"Null", events.Null, `{"source":"api-gateway","userId":null}`, nil, false},
		{"Absent", events.NullString{}, `{"source":"api-gateway"}`, nil, true},
		{"AString", events.String("user-7"), `{"source":"api-gateway","userId":"user-7"}`, "user-7", false},
	}
	inserts := []struct {
		name   string
		insert func(*store.Store, events.Envelope) error
	}{
		{"InsertEvents", func(s *store.Store, e events.Envelope) error {
			_, err := s.InsertEvents(ctx(t), []events.Envelope{e})
			return err
		}},
		{"InsertConsumedEvents", func(s *store.Store, e events.Envelope) error {
			_, err := s.InsertConsumedEvents(ctx(t), []events.Envelope{e})
			return err
		}},
	}
	for _, tc := range tests {
		for _, in := range inserts {
			t.Run(tc.name+"Via"+in.name, func(t *testing.T) {
				clock := NewClock()
				s := open(t, store.Config{Now: clock.Now})
				env := workflowCreated(clock.Now())
				env.Metadata = &events.Metadata{Source: "api-gateway", UserID: tc.userID}
				require.NoError(t, in.insert(s, env))
				clock.Advance(time.Minute)

				check := func(path string, doc store.EventDocument) {
					back, err := doc.Envelope()
					require.NoError(t, err, path)
					b, err := json.Marshal(back.Metadata)
					require.NoError(t, err, path)
					assert.JSONEq(t, tc.want, string(b), path)
				}
				doc, err := s.GetEvent(ctx(t), env.EventID)
				require.NoError(t, err)
				check("GetEvent", doc)
				found, _, err := s.FindEvents(ctx(t), store.ReplayFilter{EventTypes: []string{string(env.EventType)}}, nil, 10)
				require.NoError(t, err)
				require.Len(t, found, 1)
				check("FindEvents (a replay's read)", found[0])
				if in.name == "InsertEvents" {
					pending, err := s.UnpublishedEvents(ctx(t), clock.Now(), 10)
					require.NoError(t, err)
					require.Len(t, pending, 1)
					check("UnpublishedEvents (the sweeper's republish)", pending[0])
				}

				exported, err := s.ExportDocuments(ctx(t), store.ExportQuery{Collection: "events", Filter: map[string]string{"event_id": env.EventID}})
				require.NoError(t, err)
				require.Len(t, exported, 1)
				var row struct {
					Metadata map[string]any `json:"metadata"`
				}
				require.NoError(t, json.Unmarshal(exported[0], &row))
				got, present := row.Metadata["user_id"]
				assert.Equal(t, !tc.absent, present, "metadata.user_id in the export: %s", exported[0])
				assert.Equal(t, tc.doc, got, "metadata.user_id in the export")
			})
		}
	}
}
