package events_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamops/streamops/events"
)

// FuzzDecodeEnvelope: the envelope decoder never panics; what it accepts
// is a valid event that encodes and decodes again to the same event, and
// what it refuses is an error a consumer can dead-letter (never a panic).
func FuzzDecodeEnvelope(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "testdata", "events", "*.json"))
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"eventType":"task.created","eventId":"evt-1","timestamp":"x","payload":[]}`))
	f.Add([]byte(`{"eventType":"workflow.created","eventType":"task.created"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		env, err := events.Decode(raw)
		if err != nil {
			return // refused: a consumer dead-letters it with this error
		}
		again, err := json.Marshal(env)
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", raw, err)
		}
		back, err := events.Decode(again)
		if err != nil {
			t.Fatalf("accepted %q, re-encoded as %s, then refused it: %v", raw, again, err)
		}
		if back.EventID != env.EventID || back.EventType != env.EventType {
			t.Fatalf("round trip changed the event: %+v != %+v", back, env)
		}
	})
}
