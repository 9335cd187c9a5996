package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
)

// seedIndex is one index as a seed writes it, transcribed here by hand
// (not from store.Indexes) so the test compares the engine with the seeds.
type seedIndex struct {
	seed, collection, name string
	keys                   string // fmt of the key document, "text(a,b)" for a text index
	unique, sparse, ttl0   bool
}

// seedIndexes are every index seeds 000, 001 and 004 name.
var seedIndexes = []seedIndex{
	// seed 000, "Indexing Strategy": createIndex without names, so MongoDB's generated ones.
	{"000", "partner_events", "entity_metadata.partnerId_1_created_-1", "[{entity_metadata.partnerId 1} {created -1}]", false, false, false},
	{"000", "partner_events", "event_status_1_event_type_1", "[{event_status 1} {event_type 1}]", false, false, false},
	{"000", "partner_events", "expire_at_1", "[{expire_at 1}]", false, false, true},
	{"000", "partner_events", "entity_metadata.entity_id_1_entity_metadata.entity_type_1", "[{entity_metadata.entity_id 1} {entity_metadata.entity_type 1}]", false, false, false},
	// seed 001, EventDocument: the Indexed() fields and Settings.indexes.
	{"001", "events", "event_id_1", "[{event_id 1}]", true, false, false},
	{"001", "events", "timestamp_1", "[{timestamp 1}]", false, false, false},
	{"001", "events", "aggregate_id_1", "[{aggregate_id 1}]", false, false, false},
	{"001", "events", "idx_event_type_ts", "[{event_type 1} {timestamp -1}]", false, false, false},
	{"001", "events", "idx_aggregate_ts", "[{aggregate_id 1} {timestamp -1}]", false, false, false},
	{"001", "events", "idx_meta_user_ts", "[{metadata.user_id 1} {timestamp -1}]", false, false, false},
	{"001", "events", "idx_meta_service_ts", "[{metadata.service_name 1} {timestamp -1}]", false, false, false},
	{"001", "events", "idx_execution_id", "[{execution_id 1}]", false, true, false},
	{"001", "events", "idx_pod_name", "[{pod_name 1}]", false, true, false},
	{"001", "events", "idx_ttl", "[{ttl_expires_at 1}]", false, false, true},
	{"001", "events", "idx_events_type_agg", "[{event_type 1} {aggregate_id 1}]", false, false, false},
	{"001", "events", "idx_events_agg_ts", "[{aggregate_id 1} {timestamp 1}]", false, false, false},
	{"001", "events", "idx_events_type_ts_asc", "[{event_type 1} {timestamp 1}]", false, false, false},
	{"001", "events", "idx_events_user_ts", "[{metadata.user_id 1} {timestamp 1}]", false, false, false},
	{"001", "events", "idx_events_user_type", "[{metadata.user_id 1} {event_type 1}]", false, false, false},
	{"001", "events", "idx_events_type_user_ts", "[{event_type 1} {metadata.user_id 1} {timestamp -1}]", false, false, false},
	{"001", "events", "idx_text_search", "text(event_type,execution_id,metadata.service_name,metadata.user_id)", false, false, false},
	// seed 004: UNIQUE(provider, provider_event_id); the (status, next_attempt_at) polling index.
	{"004", "webhook_events", "", "[{provider 1} {provider_event_id 1}]", true, false, false},
	{"004", "integration_outbox", "", "[{status 1} {next_attempt_at 1}]", false, false, false},
}

// testSeedIndexes lists the indexes the engine reports and finds each
// seed's index there with its keys and options (unique, sparse, TTL, the
// text index's fields and languages). Seed 004 names no index, so there
// the keys identify it.
func testSeedIndexes(t *testing.T, open Opener) {
	s := open(t, store.Config{})
	listed := map[string][]store.IndexInfo{}
	for _, want := range seedIndexes {
		t.Run(fmt.Sprintf("seed %s %s %s%s", want.seed, want.collection, want.name, want.keys), func(t *testing.T) {
			if want.keys[:4] == "text" {
				Require(t, TextIndex)
			}
			if listed[want.collection] == nil {
				var err error
				listed[want.collection], err = s.ListIndexes(ctx(t), want.collection)
				require.NoError(t, err)
			}
			i := slices.IndexFunc(listed[want.collection], func(ix store.IndexInfo) bool {
				return ix.Name == want.name || want.name == "" && fmt.Sprint(normaliseKeys(ix.Key)) == want.keys
			})
			require.GreaterOrEqual(t, i, 0, "index %s %s on %s", want.name, want.keys, want.collection)
			got := listed[want.collection][i]
			if want.keys[:4] == "text" {
				var fields []string
				for f := range got.Weights {
					fields = append(fields, f)
				}
				slices.Sort(fields)
				assert.Equal(t, want.keys, fmt.Sprintf("text(%s)", strings.Join(fields, ",")))
				assert.Equal(t, "english", got.DefaultLanguage)
				assert.Equal(t, "none", got.LanguageOverride)
			} else {
				assert.Equal(t, want.keys, fmt.Sprint(normaliseKeys(got.Key)))
			}
			assert.Equal(t, want.unique, got.Unique, "unique")
			if want.sparse {
				// The embedded engine has no sparse index: the same set as a partial one.
				assert.True(t, got.Sparse || len(got.PartialFilterExpression) > 0, "sparse")
				if Engine() == store.EngineMongoDB {
					assert.True(t, got.Sparse, "sparse, as the seed declares it")
				}
			}
			if want.ttl0 {
				require.NotNil(t, got.ExpireAfterSeconds, "TTL index")
				assert.EqualValues(t, 0, *got.ExpireAfterSeconds, "expireAfterSeconds 0: expire at the field's date")
			} else {
				assert.Nil(t, got.ExpireAfterSeconds, "not a TTL index")
			}
		})
	}
}
