package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/streamops/streamops/events"
)

// EventTypeView is one event type of GET /api/event-types: its name, the
// Kafka topic that carries it ("" for webhook.received, which is history
// only), its JSON Schema and an example event.
type EventTypeView struct {
	EventType string `json:"eventType"`
	Topic     string `json:"topic"`
	// Schema is events.Schema: self-contained (what it refers to is
	// bundled under its $defs), so a partner validates with it alone.
	Schema json.RawMessage `json:"schema"`
	// Example is a seed-003 example event the schema accepts, and what
	// POST /api/partners/{partnerId}/test sends (with a fresh id).
	Example json.RawMessage `json:"example"`
}

// eventCatalog is every type's view in catalog order (events.Types),
// built once: the schemas and examples are embedded and never change.
var eventCatalog = sync.OnceValues(func() ([]EventTypeView, error) {
	out := make([]EventTypeView, 0, len(events.Types))
	for _, t := range events.Types {
		schema, err := events.Schema(t)
		if err != nil {
			return nil, err
		}
		example, err := events.Example(t)
		if err != nil {
			return nil, err
		}
		out = append(out, EventTypeView{EventType: string(t), Topic: t.Topic(), Schema: schema, Example: example})
	}
	return out, nil
})

// listEventTypes is GET /api/event-types: the event catalog, for admin
// and partner tokens alike (it says nothing about any partner).
func (a *api) listEventTypes(w http.ResponseWriter, r *http.Request, _ Principal) {
	list, err := eventCatalog()
	if err != nil {
		writeError(w, r, a.log, fmt.Errorf("event catalog: %w", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"eventTypes": list})
}
