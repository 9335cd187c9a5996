package outbox

import (
	"encoding/json"
	"fmt"
	"os"
)

// LoadPartners reads the partner endpoints from a JSON file (env
// STREAMOPS_PARTNERS_FILE): [{"id":"acme","name":"Acme Corp","url":"https://…"}].
// An empty path means no partners.
func LoadPartners(path string) (map[string]Partner, error) {
	out := map[string]Partner{}
	if path == "" {
		return out, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("outbox: read partners: %w", err)
	}
	var list []Partner
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("outbox: partners file %s: %w", path, err)
	}
	for i, p := range list {
		switch {
		case p.ID == "" || p.ID == TargetKafka:
			return nil, fmt.Errorf("outbox: partners[%d].id: must be set and not %q", i, TargetKafka)
		case p.URL == "":
			return nil, fmt.Errorf("outbox: partners[%d].url: required", i)
		}
		if _, dup := out[p.ID]; dup {
			return nil, fmt.Errorf("outbox: partners[%d].id: %q appears twice", i, p.ID)
		}
		out[p.ID] = p
	}
	return out, nil
}
