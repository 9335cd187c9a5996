package main

import (
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"

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

// filterFlags are seed 001's ReplayFilter as flags, shared by tail and
// replay.
type filterFlags struct {
	types, exclude, ids                 listFlag
	execution, aggregate, user, service string
	since                               time.Duration
	start, end                          string
	sinceSet, startSet, endSet          bool
}

func addFilterFlags(fs *flag.FlagSet) *filterFlags {
	f := &filterFlags{}
	fs.Var(&f.types, "type", "event types to include (repeat or comma-separate), e.g. workflow.completed")
	fs.Var(&f.exclude, "exclude-type", "event types to leave out")
	fs.Var(&f.ids, "event-id", "event ids")
	fs.StringVar(&f.execution, "execution", "", "execution id: a webhook event id (metadata.correlationId)")
	fs.StringVar(&f.aggregate, "aggregate", "", "aggregate id: a workflowId, taskId or webhookEventId")
	fs.StringVar(&f.user, "user", "", "metadata.userId")
	fs.StringVar(&f.service, "service", "", "metadata.source, e.g. webhook, api-gateway, event-processor")
	fs.DurationVar(&f.since, "since", 0, "only events from this long ago on, e.g. 15m (start_time = now - since)")
	fs.StringVar(&f.start, "start", "", "only events at or after this RFC 3339 time")
	fs.StringVar(&f.end, "end", "", "only events at or before this RFC 3339 time")
	return f
}

// filter builds the ReplayFilter the flags describe, at now.
func (f *filterFlags) filter(fs *flag.FlagSet, now time.Time) (store.ReplayFilter, error) {
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "since":
			f.sinceSet = true
		case "start":
			f.startSet = true
		case "end":
			f.endSet = true
		}
	})
	out := store.ReplayFilter{
		EventIDs: f.ids, ExecutionID: f.execution, AggregateID: f.aggregate,
		EventTypes: f.types, ExcludeEventTypes: f.exclude, UserID: f.user, ServiceName: f.service,
	}
	parse := func(name, v string) (*time.Time, error) {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, fmt.Errorf("-%s %q is not an RFC 3339 time such as 2026-01-04T01:09:27Z", name, v)
		}
		return &t, nil
	}
	var err error
	switch {
	case f.startSet && f.sinceSet:
		return out, fmt.Errorf("-start and -since both set a start time: pass one")
	case f.startSet:
		if out.StartTime, err = parse("start", f.start); err != nil {
			return out, err
		}
	case f.sinceSet:
		t := now.Add(-f.since)
		out.StartTime = &t
	}
	if f.endSet {
		if out.EndTime, err = parse("end", f.end); err != nil {
			return out, err
		}
	}
	return out, nil
}

// query is f as GET /api/events query parameters.
func query(f store.ReplayFilter) url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("event_ids", strings.Join(f.EventIDs, ","))
	set("execution_id", f.ExecutionID)
	set("aggregate_id", f.AggregateID)
	set("event_types", strings.Join(f.EventTypes, ","))
	set("exclude_event_types", strings.Join(f.ExcludeEventTypes, ","))
	set("user_id", f.UserID)
	set("service_name", f.ServiceName)
	if f.StartTime != nil {
		q.Set("start_time", f.StartTime.UTC().Format(time.RFC3339Nano))
	}
	if f.EndTime != nil {
		q.Set("end_time", f.EndTime.UTC().Format(time.RFC3339Nano))
	}
	return q
}
