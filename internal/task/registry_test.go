package task

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/vault"
)

// TestTaskTypesAreOneList holds the registered executors to
// events.TaskTypes: a type in the list without an executor's file, or an
// executor registered for a type the list does not have, fails here and
// makes NewExecutors refuse to start.
func TestTaskTypesAreOneList(t *testing.T) {
	assert.ElementsMatch(t, events.TaskTypes, slices.Collect(maps.Keys(builders)), "one registered executor per type of events.TaskTypes")

	var st *store.Store // wiring only: no executor runs here
	executors, err := NewExecutors(LocalBackends(BackendConfig{DataDir: t.TempDir(), Resolver: wiringOnly{}}), st)
	require.NoError(t, err)
	for _, typ := range events.TaskTypes {
		t.Run(string(typ), func(t *testing.T) {
			assert.NotNil(t, executors[typ], "NewExecutors builds the executor of %s", typ)
		})
	}
	assert.Len(t, executors, len(events.TaskTypes))
}

// TestNewExecutorsRefusesAListAndRegistryThatDisagree: a task type of the
// list without a registered executor, or the other way round, is an error
// at start, naming the type.
func TestNewExecutorsRefusesAListAndRegistryThatDisagree(t *testing.T) {
	saved := maps.Clone(builders)
	t.Cleanup(func() { builders = saved })
	var st *store.Store
	b := LocalBackends(BackendConfig{DataDir: t.TempDir(), Resolver: wiringOnly{}})

	tests := []struct {
		name   string
		change func()
		want   string
	}{
		{"a listed type without an executor", func() { delete(builders, events.TaskDataExport) },
			`task: no executor registered for task type "data_export"`},
		{"an executor for an unlisted type", func() { builders[eventstest.Unlisted] = builders[events.TaskEmailNotification] },
			`task: an executor is registered for task type "` + eventstest.Unlisted + `", which events.TaskTypes does not list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			builders = maps.Clone(saved)
			tt.change()
			_, err := NewExecutors(b, st)
			assert.EqualError(t, err, tt.want)
		})
	}
}

// TestNewExecutorsRefusesBackendsWithAFieldUnset: every field of Backends
// is a backend some executor needs, so one left unset (a field added
// without its LocalBackends or taskaws line) is an error at start that
// names it.
func TestNewExecutorsRefusesBackendsWithAFieldUnset(t *testing.T) {
	var st *store.Store
	full := LocalBackends(BackendConfig{DataDir: t.TempDir(), Resolver: wiringOnly{}})
	v := reflect.ValueOf(full)
	require.Positive(t, v.NumField())
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		t.Run(name, func(t *testing.T) {
			b := full
			reflect.ValueOf(&b).Elem().Field(i).SetZero()
			_, err := NewExecutors(b, st)
			assert.EqualError(t, err, "task: NewExecutors needs Backends."+name+" (set by LocalBackends and taskaws.Backends)")
		})
	}
}

// wiringOnly is the Resolver of the tests that build executors and run
// none.
type wiringOnly struct{}

func (wiringOnly) ResolveDocument(context.Context, []byte, vault.Purpose, func(pii.Category) bool) ([]byte, error) {
	panic("wiring only: no executor runs")
}
