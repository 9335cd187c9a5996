package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"
)

// partnersRequeue is `streamops partners requeue ID [-event-type T]
// [-since T] [-until T] [-yes]`: it asks the API how many of the
// partner's dead letters match, prints the count, asks (unless -yes),
// and requeues them confirming that count; if the count changed meanwhile
// the API refuses and nothing changes.
func partnersRequeue(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("partners requeue",
		"usage: streamops partners requeue PARTNER_ID [-event-type T] [-since RFC3339] [-until RFC3339] [-yes]", stderr)
	eventType := fs.String("event-type", "", "only dead letters of this event type")
	since := fs.String("since", "", "only those created at or after this RFC 3339 time")
	until := fs.String("until", "", "only those created at or before this RFC 3339 time")
	yes := fs.Bool("yes", false, "requeue without asking")
	// The id may come before the flags or after them.
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name one partner (its id)")
	}
	id := fs.Arg(0)
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("name one partner (its id), not %d", fs.NArg()+1)
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	body := map[string]any{"status": "dead_letter"}
	for name, v := range map[string]string{"eventType": *eventType, "since": *since, "until": *until} {
		if v == "" {
			continue
		}
		if name != "eventType" {
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				return fmt.Errorf("-%s: %q is not an RFC 3339 time such as 2026-01-04T01:09:27Z", name, v)
			}
		}
		body[name] = v
	}
	path := "/api/partners/" + url.PathEscape(id) + "/requeue"
	var count struct {
		Matched int `json:"matched"`
	}
	if err := c.do(ctx, "POST", path, nil, body, &count); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d dead-lettered deliveries of %s match.\n", count.Matched, id)
	if count.Matched == 0 {
		return nil
	}
	if !*yes && !confirm(stdin, stdout, fmt.Sprintf("requeue these %d deliveries, each as a new round? [y/N] ", count.Matched)) {
		return errAborted
	}
	body["confirm"] = count.Matched
	var res struct {
		Requeued int `json:"requeued"`
	}
	err = c.do(ctx, "POST", path, nil, body, &res)
	var ae *apiError
	if errors.As(err, &ae) && ae.Code == "count_changed" {
		return fmt.Errorf("%w: run it again to see the new count", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "requeued %d deliveries of %s.\n", res.Requeued, id)
	return nil
}
