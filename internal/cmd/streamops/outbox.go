package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/streamops/streamops/internal/httpapi"
)

// outboxCmd is `streamops outbox requeue ID…`.
func outboxCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("name a subcommand: requeue")
	}
	if sub := args[0]; sub != "requeue" {
		return fmt.Errorf("unknown subcommand %q: requeue", sub)
	}
	return requeueOutboxEntries(ctx, args[1:], stdout, stderr)
}

// requeueOutboxEntries requeues the dead-lettered outbox entries named by
// id, one request each, stopping at the first refused.
func requeueOutboxEntries(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("outbox requeue", "usage: streamops outbox requeue ID…", stderr)
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name the dead-lettered outbox entries to requeue (their outbox_id)")
	}
	for _, id := range fs.Args() {
		var res httpapi.OutboxRequeueResponse
		if err := c.do(ctx, "POST", "/api/outbox/"+url.PathEscape(id)+"/requeue", nil, nil, &res); err != nil {
			return fmt.Errorf("requeue %s: %w", id, err)
		}
		fmt.Fprintf(stdout, "requeued %s: now %s, a new round of %d attempts, %d requeue(s)\n",
			res.OutboxID, res.Status, res.MaxAttempts, res.Requeues)
	}
	return nil
}
