package store_test

import (
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/internal/seedtest"
	"github.com/streamops/streamops/internal/store"
)

// TestEveryFilterFieldSelects sets each filter of store.FilterFields alone:
// it becomes a clause of ToQuery, and it makes the filter non-empty (so a
// replay by it alone is not refused as a replay of everything) unless it
// only excludes. A field added to ReplayFilter without its ToQuery clause
// fails here, naming it, and so does one of a type no parameter reads.
func TestEveryFilterFieldSelects(t *testing.T) {
	at := time.Date(2026, 1, 4, 1, 0, 0, 0, time.UTC)
	values := map[reflect.Type]any{
		reflect.TypeFor[[]string]():   []string{"x-1"},
		reflect.TypeFor[string]():     "x-1",
		reflect.TypeFor[*time.Time](): &at,
	}
	fields := store.FilterFields()
	require.NotEmpty(t, fields)
	for _, field := range fields {
		t.Run(field.Name, func(t *testing.T) {
			value, ok := values[field.Type]
			require.True(t, ok, "ReplayFilter.%s: a filter is a []string, a string or a *time.Time (the query parameter reads it by its type)", field.StructField.Name)
			var f store.ReplayFilter
			reflect.ValueOf(&f).Elem().FieldByIndex(field.Index).Set(reflect.ValueOf(value))

			assert.NotEqual(t, bson.M{}, f.ToQuery(), "ToQuery has a clause for %s", field.Name)
			assert.Equal(t, field.Excludes(), f.IsEmpty(), "%s alone makes the filter non-empty, unless it only excludes", field.Name)
			assert.True(t, f.SelectsSome())
		})
	}
}

// filterDeviation is the clause cell of docs/conformance.md's deviation
// row that names the filters StreamOps adds to seed 001's ReplayFilter.
const filterDeviation = "`ReplayFilter` fields"

// TestFiltersBeyondSeed001AreDeviations: a filter of store.FilterFields
// that seed 001's ReplayFilter does not have differs from the seed, so
// docs/conformance.md's deviation row filterDeviation names it; one added
// without that row fails here, naming it.
func TestFiltersBeyondSeed001AreDeviations(t *testing.T) {
	seed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^    (\w+): `).FindAllStringSubmatch(string(seedtest.Read(t, "001_replay_filter.py")), -1) {
		seed[m[1]] = true
	}
	require.Len(t, seed, 9, "the seed's filter fields")
	row := seedtest.DeviationRow(t, "001", filterDeviation)
	for _, f := range store.FilterFields() {
		if !seed[f.Name] {
			assert.Contains(t, row, "`"+f.Name+"`",
				"filter %s is not seed 001's: name it in the deviation row %q of docs/conformance.md", f.Name, filterDeviation)
		}
	}
}
