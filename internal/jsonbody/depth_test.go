package jsonbody_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/jsonbody/jsonbodytest"
)

// TestCheckBoundsNesting: a body nested up to MaxDepth is checked as
// before; one level more, or a hundred thousand, is a *DepthError naming
// the limit, found in one pass before any decoder reads the body.
func TestCheckBoundsNesting(t *testing.T) {
	for _, kind := range jsonbodytest.Kinds {
		for _, depth := range []int{10, jsonbody.MaxDepth, jsonbody.MaxDepth + 1, 100_000} {
			t.Run(fmt.Sprintf("%s %d", kind, depth), func(t *testing.T) {
				err := jsonbody.Check([]byte(jsonbodytest.Nested(kind, depth)))
				if depth <= jsonbody.MaxDepth {
					assert.NoError(t, err)
					return
				}
				var deep *jsonbody.DepthError
				require.ErrorAs(t, err, &deep)
				assert.Equal(t, jsonbody.MaxDepth, deep.Limit)
				assert.ErrorIs(t, err, jsonbody.ErrInvalid)
				assert.Contains(t, err.Error(), fmt.Sprintf("the limit of %d levels", jsonbody.MaxDepth))
			})
		}
	}
}

// TestCheckDepthCountsOnlyStructure: brackets in strings, escaped quotes
// and the closing of siblings do not count.
func TestCheckDepthCountsOnlyStructure(t *testing.T) {
	tests := []struct {
		doc   string
		limit int
		ok    bool
	}{
		{`{"a":"[[[[{{{{"}`, 1, true},
		{`{"a":"\"[[[["}`, 1, true},
		{`{"a":"\\"}`, 1, true},
		{`[[1],[2],[3]]`, 2, true},
		{`[[[1]]]`, 2, false},
		{`{"a":{"b":"\\\"{"},"c":{}}`, 2, true},
		{`{"a":{"b":"\\"},"c":{"d":[]}}`, 2, false},
	}
	for _, tc := range tests {
		err := jsonbody.CheckDepth([]byte(tc.doc), tc.limit)
		assert.Equal(t, tc.ok, err == nil, "%s at limit %d: %v", tc.doc, tc.limit, err)
	}
}

// TestDuplicateKeyPathDeepInsideALargeBody: the path of a repeated key is
// built only for the error, so long keys nested deep above many values
// cost their length once, not once per value.
func TestDuplicateKeyPathDeepInsideALargeBody(t *testing.T) {
	key := strings.Repeat("k", 10_000)
	var b strings.Builder
	for range jsonbody.MaxDepth - 2 {
		fmt.Fprintf(&b, `{%q:`, key)
	}
	b.WriteString("[" + strings.Repeat("0,", 100_000) + `{"x":1,"x":2}]`)
	b.WriteString(strings.Repeat("}", jsonbody.MaxDepth-2))
	err := jsonbody.Check([]byte(b.String()))
	var dup *jsonbody.DuplicateKeyError
	require.ErrorAs(t, err, &dup)
	assert.True(t, strings.HasSuffix(dup.Path, key+".100000.x"), "the path ends %q", dup.Path[len(dup.Path)-20:])
}
