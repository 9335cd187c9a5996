package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/streamops/streamops/events"
)

// eventPage is the answer of GET /api/events.
type eventPage struct {
	Events     []events.Envelope `json:"events"`
	NextCursor string            `json:"nextCursor"`
}

// tail is `streamops tail`: print the events matching a filter, oldest
// first, then keep polling GET /api/events for new ones until interrupted.
//
// The API issues a cursor only for a full page, so at the end of the
// history tail asks again from the last cursor it was given and prints
// only the events it has not printed yet. Events are ordered by their own
// timestamp, so one stamped more than a page before the newest printed
// event (a very late write) is not shown.
func tail(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("tail", "usage: streamops tail [flags]\n\nFollows the event history (GET /api/events), oldest first.", stderr)
	filters := addFilterFlags(fs)
	fromStart := fs.Bool("from-start", false, "print the whole history first (default: only events from now on, or -since)")
	limit := fs.Int("limit", 100, "page size, 1 to 1000")
	interval := fs.Duration("interval", time.Second, "how often to ask for new events")
	once := fs.Bool("once", false, "print what matches now and exit instead of following")
	asJSON := fs.Bool("json", false, "print each event as one JSON line")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	now := time.Now()
	f, err := filters.filter(fs, now)
	if err != nil {
		return err
	}
	if f.StartTime == nil && !*fromStart {
		f.StartTime = &now
	}
	q := query(f)
	q.Set("limit", strconv.Itoa(*limit))
	cursor := ""
	printed := map[string]bool{} // events printed after cursor
	for {
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page eventPage
		if err := c.do(ctx, "GET", "/api/events", q, nil, &page); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for _, e := range page.Events {
			if printed[e.EventID] {
				continue
			}
			printed[e.EventID] = true
			if err := printEvent(stdout, e, *asJSON); err != nil {
				return err
			}
		}
		if page.NextCursor != "" {
			// Everything printed so far lies at or before the new cursor.
			cursor, printed = page.NextCursor, map[string]bool{}
			continue
		}
		if *once {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(*interval):
		}
	}
}

// printEvent writes one event: a JSON line, or a line for people with its
// time, type, aggregate, correlation and payload.
func printEvent(w io.Writer, e events.Envelope, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var ids struct {
		WorkflowID     string `json:"workflowId"`
		TaskID         string `json:"taskId"`
		WebhookEventID string `json:"webhookEventId"`
	}
	_ = json.Unmarshal(e.Payload, &ids)
	aggregate := ids.WorkflowID + ids.TaskID
	if aggregate == "" {
		aggregate = ids.WebhookEventID
	}
	source := ""
	if e.Metadata != nil {
		source = e.Metadata.Source
	}
	payload := string(e.Payload)
	if len(payload) > 160 {
		payload = payload[:157] + "..."
	}
	_, err := fmt.Fprintf(w, "%s  %-24s %-40s %-16s %s\n",
		e.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z"), e.EventType, aggregate, source, payload)
	return err
}

// errAborted ends a command the user declined to confirm.
var errAborted = errors.New("aborted: nothing was changed")
