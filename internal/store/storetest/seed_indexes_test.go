package storetest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/internal/seedtest"
)

// mongoName is the name MongoDB generates for an index of keys.
func mongoName(keys bson.D) string {
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s_%v", k.Key, k.Value))
	}
	return strings.Join(parts, "_")
}

// seed000Indexes parses seed 000's createIndex lines.
func seed000Indexes(t *testing.T) []seedIndex {
	line := regexp.MustCompile(`^db\.(\w+)\.createIndex\(\{ (.+?) \}(?:, \{ (.+) \})?\)$`)
	key := regexp.MustCompile(`"([\w.]+)": (-?1)`)
	var out []seedIndex
	for _, l := range strings.Split(string(seedtest.Read(t, "000_indexing_strategy.js")), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var keys bson.D
		for _, k := range key.FindAllStringSubmatch(m[2], -1) {
			dir := 1
			if k[2] == "-1" {
				dir = -1
			}
			keys = append(keys, bson.E{Key: k[1], Value: dir})
		}
		out = append(out, seedIndex{seed: "000", collection: m[1], name: mongoName(keys), keys: fmt.Sprint(keys),
			ttl0: m[3] == "expireAfterSeconds: 0"})
	}
	return out
}

// seed001Indexes parses seed 001's EventDocument: its Indexed() fields and
// its Settings.indexes IndexModels.
func seed001Indexes(t *testing.T) []seedIndex {
	src := string(seedtest.Read(t, "001_event_document.py"))
	var out []seedIndex
	for _, m := range regexp.MustCompile(`(?m)^    (\w+): Indexed\((\w+)(, unique=True)?\)`).FindAllStringSubmatch(src, -1) {
		keys := bson.D{{Key: m[1], Value: 1}}
		out = append(out, seedIndex{seed: "001", collection: "events", name: mongoName(keys), keys: fmt.Sprint(keys), unique: m[3] != ""})
	}
	flat := strings.Join(strings.Fields(src), " ")
	model := regexp.MustCompile(`IndexModel\( ?\[ ?(.+?),? ?\], name="(\w+)"(.*?),? ?\)`)
	tuple := regexp.MustCompile(`\("([\w.]+)", ([\w.]+)\)`)
	for _, m := range model.FindAllStringSubmatch(flat, -1) {
		var keys bson.D
		var text []string
		for _, k := range tuple.FindAllStringSubmatch(m[1], -1) {
			switch k[2] {
			case "ASCENDING":
				keys = append(keys, bson.E{Key: k[1], Value: 1})
			case "DESCENDING":
				keys = append(keys, bson.E{Key: k[1], Value: -1})
			case "pymongo.TEXT":
				text = append(text, k[1])
			default:
				t.Fatalf("index %s: direction %s", m[2], k[2])
			}
		}
		ix := seedIndex{seed: "001", collection: "events", name: m[2], keys: fmt.Sprint(keys),
			sparse: strings.Contains(m[3], "sparse=True"), ttl0: strings.Contains(m[3], "expireAfterSeconds=0")}
		if text != nil {
			slices.Sort(text)
			ix.keys = fmt.Sprintf("text(%s)", strings.Join(text, ","))
			require.Contains(t, m[3], `language_override="none"`)
			require.Contains(t, m[3], `default_language="english"`)
		}
		out = append(out, ix)
	}
	return out
}

// seed004Indexes reads seed 004's constraints from the tables' data.
func seed004Indexes(t *testing.T) []seedIndex {
	var tables struct {
		WebhookEvents struct {
			Unique      []string `json:"unique"`
			Constraints []string `json:"constraints"`
		} `json:"webhook_events"`
		Outbox struct {
			Index       []string `json:"index"`
			Constraints []string `json:"constraints"`
		} `json:"integration_outbox"`
	}
	require.NoError(t, json.Unmarshal(seedtest.Read(t, "004_integration_tables.json"), &tables))
	keys := func(fields []string) string {
		var d bson.D
		for _, f := range fields {
			d = append(d, bson.E{Key: f, Value: 1})
		}
		return fmt.Sprint(d)
	}
	assert.Contains(t, tables.WebhookEvents.Constraints[0], "UNIQUE("+strings.Join(tables.WebhookEvents.Unique, ", ")+")")
	assert.Contains(t, tables.Outbox.Constraints[0], "Index on("+strings.Join(tables.Outbox.Index, ", ")+")")
	return []seedIndex{
		{seed: "004", collection: "webhook_events", keys: keys(tables.WebhookEvents.Unique), unique: true},
		{seed: "004", collection: "integration_outbox", keys: keys(tables.Outbox.Index)},
	}
}

// TestSeedIndexTableIsTheSeedsText parses the index definitions out of the
// seeds' own text (testdata/seeds) and requires the table the contract
// suite checks every engine against (IndexesAreExactlyAsTheSeedsNameThem)
// to be exactly them: seed 000's four createIndex calls, seed 001's
// Indexed() fields and IndexModels, seed 004's two constraints.
func TestSeedIndexTableIsTheSeedsText(t *testing.T) {
	parsed := slices.Concat(seed000Indexes(t), seed001Indexes(t), seed004Indexes(t))
	require.Len(t, seed000Indexes(t), 4)
	require.Len(t, seed001Indexes(t), 17)
	assert.ElementsMatch(t, seedIndexes, parsed)
}
