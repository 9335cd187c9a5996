package events

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeBoth decodes raw as an Envelope the way UnmarshalJSON does and
// through the map of its members only (decodeMembers, the reference), and
// reports whether UnmarshalJSON took the fast path.
func decodeBoth(raw []byte) (got, want Envelope, gotErr, wantErr error, fast bool) {
	fast = onlyNamed(raw, want.fields())
	gotErr = got.UnmarshalJSON(raw)
	var extra Extra
	if extra, wantErr = decodeMembers(raw, "envelope", want.fields()...); wantErr != nil {
		want = Envelope{}
	} else {
		want.Extra = extra
	}
	return got, want, gotErr, wantErr, fast
}

// TestDecodeFastPathReadsAsTheMembersDo: an envelope or metadata object
// whose members all have their exact names decodes straight into the
// struct (the fast path), anything else through the map of its members,
// and both read every object alike: the same fields, the same Extra, an
// error for the same inputs. The cases are what could tell the two apart:
// case-folded and escaped names (encoding/json's struct decoding matches
// names case-insensitively), repeated names, strings and nested values
// holding braces, quotes and escapes, whitespace, nulls, and input that
// is not JSON at all (UnmarshalJSON called directly gets it unchecked).
func TestDecodeFastPathReadsAsTheMembersDo(t *testing.T) {
	const base = `"eventType":"workflow.created","eventId":"evt-1","timestamp":"2026-01-04T01:09:27.123Z","payload":{"workflowId":"wf-1"}`
	tests := []struct {
		name string
		raw  string
		fast bool
		err  bool
	}{
		{"every member named", `{` + base + `,"schemaVersion":"1.0.0","metadata":{"source":"api-gateway","userId":null}}`, true, false},
		{"an empty object", `{}`, true, false},
		{"whitespace everywhere", " \n{ \"eventType\" :\t\"task.created\" ,\r\n \"eventId\" : \"e\" , \"payload\" : { } , \"metadata\" : null } \n", true, false},
		{"a repeated name: the last wins", `{` + base + `,"eventId":"evt-2"}`, true, false},
		{"braces, quotes and escapes in values", `{` + base[:len(base)-1] + `,"note":"}\"{[\\","list":[{"a":"]}"},[],"\u007d"]}` + `,"metadata":{"source":"a\"}b"}}`, true, false},
		{"numbers, literals and nesting in the payload", `{"eventType":"x","payload":{"n":-1.5e3,"t":true,"f":false,"z":null,"deep":[[[{"k":[1,{"}":"{"}]}]]]}}`, true, false},
		{"an added member", `{` + base + `,"traceparent":"00-abc-01"}`, false, false},
		{"an added metadata member", `{` + base + `,"metadata":{"source":"s","tenant":{"id":"acme"}}}`, true, false},
		{"a case-folded name", `{` + base + `,"EventId":"evt-other"}`, false, false},
		{"only a case-folded name", `{"EVENTTYPE":"workflow.created","eventId":"evt-1"}`, false, false},
		{"an escaped name", `{"event\u0049d":"evt-escaped","eventType":"x"}`, false, false},
		{"an escaped added name", `{"eventType":"x","tr\u0061ce":"1"}`, false, false},
		{"a name with an escaped quote", `{"eventType":"x","a\"b":1}`, false, false},
		{"a non-ASCII name", `{"eventType":"x","ëventId":"e"}`, false, false},
		{"an empty name", `{"eventType":"x","":1}`, false, false},
		{"metadata null", `{` + base + `,"metadata":null}`, true, false},
		{"payload null", `{"eventType":"x","payload":null}`, true, false},
		{"null", `null`, false, false},
		{"an array", `[{"eventType":"x"}]`, false, true},
		{"a string", `"eventType"`, false, true},
		{"a wrong type", `{"eventType":"x","eventId":7}`, true, true},
		{"a wrong type beside an added member", `{"eventType":"x","eventId":7,"extra":1}`, false, true},
		{"a bad timestamp", `{"eventType":"x","timestamp":"yesterday"}`, true, true},
		{"metadata of a wrong type", `{"eventType":"x","metadata":"partner"}`, true, true},
		{"a trailing comma", `{"eventType":"x",}`, false, true},
		{"a missing colon", `{"eventType" "x"}`, false, true},
		{"a missing comma", `{"eventType":"x" "eventId":"e"}`, false, true},
		{"cut in a name", `{"eventTy`, false, true},
		{"cut in a string", `{"eventType":"x`, false, true},
		{"cut in an object", `{"eventType":"x","payload":{"a":[1,2`, false, true},
		{"cut after a value", `{"eventType":"x"`, false, true},
		{"unbalanced brackets", `{"eventType":"x","payload":{"a":[1}]}`, true, true},
		{"garbage after the object", `{"eventType":"x"}}`, true, true},
		{"an unquoted name", `{eventType:"x"}`, false, true},
		{"empty input", ``, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want, gotErr, wantErr, fast := decodeBoth([]byte(tt.raw))
			assert.Equal(t, tt.fast, fast, "fast path")
			if tt.err {
				assert.Error(t, gotErr)
				assert.Error(t, wantErr, "the reference refuses it too")
			} else {
				require.NoError(t, gotErr)
				require.NoError(t, wantErr)
			}
			assert.Equal(t, want, got)
		})
	}
}

// TestDecodeFastPathReadsEverySeedExample: seed 003's examples take the
// fast path and decode as the members do.
func TestDecodeFastPathReadsEverySeedExample(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "events", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			raw, err := os.ReadFile(p)
			require.NoError(t, err)
			got, want, gotErr, wantErr, fast := decodeBoth(raw)
			require.NoError(t, gotErr)
			require.NoError(t, wantErr)
			assert.True(t, fast)
			assert.Equal(t, want, got)
		})
	}
}

// FuzzDecodeFastPath: for any input, UnmarshalJSON (fast path or not)
// accepts what decoding through the members accepts, and reads it alike.
func FuzzDecodeFastPath(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "events", "*.json"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"eventType":"x","EventId":"y","metadata":{"Source":"s"}}`))
	f.Add([]byte(`{"event\u0049d":"e","payload":{"}":"{\"["}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, want, gotErr, wantErr, _ := decodeBoth(raw)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: UnmarshalJSON error %v, members error %v", raw, gotErr, wantErr)
		}
		if gotErr == nil && !assert.ObjectsAreEqual(want, got) {
			t.Fatalf("%q: UnmarshalJSON read %+v, the members %+v", raw, got, want)
		}
	})
}

// baselineEnvelope is Envelope decoded by encoding/json alone, its
// metadata too: the baseline of BenchmarkDecodeEnvelope, what decoding
// cost before envelopes kept the members they do not name.
type baselineEnvelope struct {
	plainEnvelope
	Metadata *plainMetadata `json:"metadata"`
}

// BenchmarkDecodeEnvelope decodes seed 003's workflow.created example into
// an Envelope against the baseline of the same JSON into the plain struct,
// in the same run; and the example with a member added to its envelope,
// metadata and payload, which pays for finding the members it keeps.
func BenchmarkDecodeEnvelope(b *testing.B) {
	seed, err := os.ReadFile(filepath.Join("..", "testdata", "events", "workflow.created.json"))
	require.NoError(b, err)
	var doc map[string]any
	require.NoError(b, json.Unmarshal(seed, &doc))
	doc["traceparent"] = "00-abc-01"
	doc["metadata"].(map[string]any)["tenant"] = "acme"
	doc["payload"].(map[string]any)["deadline"] = "2026-02-01"
	added, err := json.Marshal(doc)
	require.NoError(b, err)

	run := func(raw []byte, decode func([]byte) error) func(b *testing.B) {
		return func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if err := decode(raw); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("baseline=struct", run(seed, func(raw []byte) error {
		var e baselineEnvelope
		return json.Unmarshal(raw, &e)
	}))
	envelope := func(raw []byte) error {
		var e Envelope
		return json.Unmarshal(raw, &e)
	}
	b.Run("envelope", run(seed, envelope))
	b.Run("envelope,added-members", run(added, envelope))
}
