package main

import (
	"flag"
	"io"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
)

// TestFilterFlagsCoverEveryFilterField ties the CLI to the one list of
// GET /api/events filters, the JSON fields of store.ReplayFilter: every
// field has a flag, and each flag reaches the API as its field's query
// parameter. A filter added to ReplayFilter gets a flag without a row in
// filterFlagNames, named as its field and described as its parameter.
func TestFilterFlagsCoverEveryFilterField(t *testing.T) {
	fields := filterFields()
	var specFields, flags []string
	for _, spec := range filterFlagSpecs() {
		specFields = append(specFields, spec.field)
		flags = append(flags, spec.flag)
		assert.NotEmpty(t, spec.usage, "-%s has a usage: the OpenAPI parameter %s has a description", spec.flag, spec.field)
	}
	assert.ElementsMatch(t, keys(fields), specFields, "one flag per ReplayFilter field")
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(flags))), len(flags), "no two filters share a flag")
	for _, named := range filterFlagNames {
		assert.Contains(t, fields, named.field, "filterFlagNames names only ReplayFilter fields")
	}

	// A value of each kind of field, and what the query carries for it.
	values := map[reflect.Kind][2]string{
		reflect.Slice:   {"a1,b2", "a1,b2"},
		reflect.String:  {"v-1", "v-1"},
		reflect.Pointer: {"2026-01-04T02:00:00+01:00", "2026-01-04T01:00:00Z"},
	}
	for _, spec := range filterFlagSpecs() {
		t.Run(spec.field, func(t *testing.T) {
			v, ok := values[fields[spec.field].Type.Kind()]
			require.True(t, ok, "a flag for a %s field", fields[spec.field].Type)
			q := query(parseFilter(t, "-"+spec.flag, v[0]))
			assert.Equal(t, v[1], q.Get(spec.field))
			assert.Len(t, q, 1, "only %s is set: %v", spec.field, q)
		})
	}
}

func TestFilterFlagsOfTimeAndLists(t *testing.T) {
	assert.Equal(t, "workflow.created,task.created",
		query(parseFilter(t, "-type", "workflow.created", "-type", "task.created")).Get("event_types"))
	assert.Equal(t, "2026-01-04T00:54:27Z", query(parseFilter(t, "-since", "15m")).Get("start_time"))

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-start", "2026-01-04T00:00:00Z", "-since", "1h"}, "-start and -since both set a start time"},
		{[]string{"-end", "yesterday"}, `-end "yesterday" is not an RFC 3339 time`},
	} {
		fs, ff := filterFlagSet(t, tt.args...)
		_, err := ff.filter(fs, filterNow)
		assert.ErrorContains(t, err, tt.want)
	}
}

var filterNow = time.Date(2026, 1, 4, 1, 9, 27, 0, time.UTC)

func filterFlagSet(t *testing.T, args ...string) (*flag.FlagSet, *filterFlags) {
	t.Helper()
	fs := flag.NewFlagSet("tail", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ff := addFilterFlags(fs)
	require.NoError(t, fs.Parse(args))
	return fs, ff
}

func parseFilter(t *testing.T, args ...string) (f store.ReplayFilter) {
	t.Helper()
	fs, ff := filterFlagSet(t, args...)
	f, err := ff.filter(fs, filterNow)
	require.NoError(t, err)
	return f
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
