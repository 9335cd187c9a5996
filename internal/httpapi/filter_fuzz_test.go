package httpapi

import (
	"errors"
	"net/url"
	"testing"

	"github.com/streamops/streamops/events"
)

// FuzzReplayFilterQuery parses seed 001's ReplayFilter from any query
// string. Whatever the input it never panics, and it either refuses with a
// parameter error that names one of the filter's parameters (a 400 on every
// route that reads it) or returns a filter that holds only known event types
// and an ordered time range, which the store can turn into a query.
func FuzzReplayFilterQuery(f *testing.F) {
	for _, s := range []string{
		"",
		"event_types=workflow.created,task.completed&aggregate_id=wf-1",
		"exclude_event_types=workflow.teleported",
		"start_time=2026-01-04T01:09:27.123Z&end_time=2026-01-04T01:09:27.122Z",
		"start_time=yesterday",
		"event_ids=evt-1,,evt-2&user_id=u%00&service_name=%ff",
		"event_types=%2C%2C&event_types=task.created&execution_id=exec-1",
	} {
		f.Add(s)
	}
	params := map[string]bool{"event_types": true, "exclude_event_types": true, "start_time": true, "end_time": true}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return // the router answers a malformed query before any handler
		}
		filter, err := replayFilter(q)
		if err != nil {
			var pe *paramError
			if !errors.As(err, &pe) || !params[pe.Param] {
				t.Fatalf("query %q: refused with %v, which names no filter parameter", raw, err)
			}
			return
		}
		for _, typ := range append(append([]string{}, filter.EventTypes...), filter.ExcludeEventTypes...) {
			if !events.Type(typ).Known() {
				t.Fatalf("query %q: accepted unknown event type %q", raw, typ)
			}
		}
		if filter.StartTime != nil && filter.EndTime != nil && filter.EndTime.Before(*filter.StartTime) {
			t.Fatalf("query %q: accepted a range that ends before it starts", raw)
		}
		_ = filter.ToQuery()
	})
}
