package main

import (
	"flag"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/store"
)

// listFlag is a repeatable, comma-separated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for part := range strings.SplitSeq(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// filterFlag is the CLI flag of one filter: its JSON field, the flag's
// name and its usage.
type filterFlag struct{ field, flag, usage string }

// filterFlagNames are the flags of seed 001's filters, whose names are
// shorter than their fields'. A filter without a row here (one added to
// store.ReplayFilter later) gets the flag of its JSON name with '-' for
// '_' and the description of its OpenAPI parameter (filterFlagSpecs).
var filterFlagNames = []filterFlag{
	{"event_types", "type", "event types to include (repeat or comma-separate), e.g. workflow.completed"},
	{"exclude_event_types", "exclude-type", "event types to leave out"},
	{"event_ids", "event-id", "event ids"},
	{"execution_id", "execution", "execution id: a webhook event id (metadata.correlationId)"},
	{"aggregate_id", "aggregate", "aggregate id: a workflowId, taskId or webhookEventId"},
	{"user_id", "user", "metadata.userId"},
	{"service_name", "service", "metadata.source, e.g. webhook, api-gateway, event-processor"},
	{"start_time", "start", "only events at or after this RFC 3339 time"},
	{"end_time", "end", "only events at or before this RFC 3339 time"},
}

// filterFlagSpecs are the CLI flags of the filters, one per field of
// store.FilterFields (the one list of filters, docs/extending.md), in its
// order. A field's Go type sets how its flag reads: []string a
// repeatable, comma-separated list, string one value, *time.Time an RFC
// 3339 time.
func filterFlagSpecs() []filterFlag {
	var out []filterFlag
	for _, f := range store.FilterFields() {
		spec := filterFlag{field: f.Name, flag: strings.ReplaceAll(f.Name, "_", "-"), usage: httpapi.ParameterDescription(f.Name)}
		for _, named := range filterFlagNames {
			if named.field == f.Name {
				spec = named
			}
		}
		out = append(out, spec)
	}
	return out
}

// filterFlags are the flags of filterFlagSpecs, shared by tail and
// replay, and -since, another way to set start_time.
type filterFlags struct {
	values map[string]flag.Value // by JSON field
	since  time.Duration
}

func addFilterFlags(fs *flag.FlagSet) *filterFlags {
	f := &filterFlags{values: map[string]flag.Value{}}
	fields := filterFields()
	for _, spec := range filterFlagSpecs() {
		var v flag.Value = new(stringFlag)
		if fields[spec.field].Type.Kind() == reflect.Slice {
			v = new(listFlag)
		}
		fs.Var(v, spec.flag, spec.usage)
		f.values[spec.field] = v
	}
	fs.DurationVar(&f.since, "since", 0, "only events from this long ago on, e.g. 15m (start_time = now - since)")
	return f
}

// stringFlag is a flag that holds one value.
type stringFlag string

func (s *stringFlag) String() string     { return string(*s) }
func (s *stringFlag) Set(v string) error { *s = stringFlag(v); return nil }

// filterFields are store.FilterFields by JSON name.
func filterFields() map[string]store.FilterField {
	out := map[string]store.FilterField{}
	for _, f := range store.FilterFields() {
		out[f.Name] = f
	}
	return out
}

// filter builds the ReplayFilter the flags describe, at now.
func (f *filterFlags) filter(fs *flag.FlagSet, now time.Time) (store.ReplayFilter, error) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	var out store.ReplayFilter
	if set["start"] && set["since"] {
		return out, fmt.Errorf("-start and -since both set a start time: pass one")
	}
	v := reflect.ValueOf(&out).Elem()
	fields := filterFields()
	for _, spec := range filterFlagSpecs() {
		if !set[spec.flag] {
			continue
		}
		dst := v.FieldByIndex(fields[spec.field].Index)
		switch val := f.values[spec.field].(type) {
		case *listFlag:
			dst.Set(reflect.ValueOf([]string(*val)))
		case *stringFlag:
			if dst.Kind() == reflect.String {
				dst.SetString(string(*val))
				continue
			}
			t, err := time.Parse(time.RFC3339Nano, string(*val))
			if err != nil {
				return out, fmt.Errorf("-%s %q is not an RFC 3339 time such as 2026-01-04T01:09:27Z", spec.flag, string(*val))
			}
			dst.Set(reflect.ValueOf(&t))
		}
	}
	if set["since"] {
		t := now.Add(-f.since)
		out.StartTime = &t
	}
	return out, nil
}

// query is f as GET /api/events query parameters, one per set field.
func query(f store.ReplayFilter) url.Values {
	q := url.Values{}
	v := reflect.ValueOf(f)
	for _, field := range store.FilterFields() {
		name := field.Name
		switch x := v.FieldByIndex(field.Index).Interface().(type) {
		case []string:
			if len(x) > 0 {
				q.Set(name, strings.Join(x, ","))
			}
		case string:
			if x != "" {
				q.Set(name, x)
			}
		case *time.Time:
			if x != nil {
				q.Set(name, x.UTC().Format(time.RFC3339Nano))
			}
		}
	}
	return q
}
