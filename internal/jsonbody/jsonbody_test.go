package jsonbody_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/jsonbody"
)

func TestCheckRefusesRepeatedKeysAndNamesThem(t *testing.T) {
	tests := []struct {
		name, body, dup string
		ok              bool
	}{
		{"plain object", `{"id":"evt_1","type":"invoice.paid","data":{"object":{"id":"in_1"}}}`, "", true},
		{"same key in sibling objects", `{"a":{"id":1},"b":{"id":2},"c":[{"id":3},{"id":4}]}`, "", true},
		{"top-level repeat", `{"id":"evt_1","type":"a","id":"evt_2"}`, "id", false},
		{"nested repeat", `{"data":{"object":{"id":"x","id":"y"}}}`, "data.object.id", false},
		{"repeat inside an array element", `{"items":[{"sku":1},{"sku":2,"sku":3}]}`, "items.1.sku", false},
		{"repeat after a nested object", `{"a":{"b":1},"a":2}`, "a", false},
		{"keys differing only by escape are the same key", `{"id":1,"\u0069d":2}`, "id", false},
		{"array at the top", `[{"a":1},{"a":2}]`, "", true},
		{"scalar", `42`, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := jsonbody.Check([]byte(tc.body))
			if tc.ok {
				assert.NoError(t, err)
				return
			}
			var dup *jsonbody.DuplicateKeyError
			require.ErrorAs(t, err, &dup)
			assert.Equal(t, tc.dup, dup.Path)
			assert.ErrorIs(t, err, jsonbody.ErrInvalid)
		})
	}
}

func TestCheckRefusesWhatIsNotOneJSONValue(t *testing.T) {
	for _, body := range []string{``, `{"a":`, `{"a":1}{"b":2}`, `{"a":1} x`, `{a:1}`, `{"a":1,}`, `[1,]`} {
		t.Run(body, func(t *testing.T) {
			err := jsonbody.Check([]byte(body))
			assert.ErrorIs(t, err, jsonbody.ErrInvalid)
			var dup *jsonbody.DuplicateKeyError
			assert.False(t, errors.As(err, &dup))
		})
	}
}

// FuzzCheck: Check never panics, whatever it accepts encoding/json
// accepts too, and nothing it accepts nests deeper than MaxDepth.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":{"b":[1,{"c":2}]}}`, `{"a":1,"a":2}`, `[]`, `"x"`, `{"a":`,
		strings.Repeat("[", jsonbody.MaxDepth) + strings.Repeat("]", jsonbody.MaxDepth),
		strings.Repeat(`{"a":`, jsonbody.MaxDepth+1) + "1" + strings.Repeat("}", jsonbody.MaxDepth+1),
		`{"s":"` + strings.Repeat("[", 100) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if jsonbody.Check(body) == nil {
			assert.True(t, json.Valid(body), "%q accepted but not valid JSON", body)
			assert.NoError(t, jsonbody.CheckDepth(body, jsonbody.MaxDepth), "%q accepted but nested too deep", body)
		}
	})
}
