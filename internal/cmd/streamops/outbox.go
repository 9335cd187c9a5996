package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/streamops/streamops/internal/httpapi"
)

// outboxCmd is `streamops outbox requeue ID…`, `outbox show ID` and
// `outbox resend ID…`.
func outboxCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("name a subcommand: show, requeue, resend")
	}
	switch sub := args[0]; sub {
	case "requeue":
		return requeueOutboxEntries(ctx, args[1:], stdout, stderr)
	case "resend":
		return resendOutboxEntries(ctx, args[1:], stdout, stderr)
	case "show":
		return showOutboxEntry(ctx, args[1:], stdout, stderr)
	default:
		return fmt.Errorf("unknown subcommand %q: show, requeue, resend", sub)
	}
}

// requeueOutboxEntries requeues the dead-lettered outbox entries named by
// id, one request each, stopping at the first refused.
func requeueOutboxEntries(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return eachOutboxEntry(ctx, args, "requeue", "dead-lettered", stderr, func(c *client, id string) error {
		var res httpapi.OutboxRequeueResponse
		if err := c.do(ctx, "POST", "/api/outbox/"+url.PathEscape(id)+"/requeue", nil, nil, &res); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "requeued %s: now %s, a new round of %d attempts, %d requeue(s)\n",
			res.OutboxID, res.Status, res.MaxAttempts, res.Requeues)
		return nil
	})
}

// resendOutboxEntries sends the completed outbox entries named by id
// again, one request each, stopping at the first refused.
func resendOutboxEntries(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return eachOutboxEntry(ctx, args, "resend", "completed", stderr, func(c *client, id string) error {
		var res httpapi.OutboxEntryResponse
		if err := c.do(ctx, "POST", "/api/outbox/"+url.PathEscape(id)+"/resend", nil, nil, &res); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "resent %s: now %s, a new round of %d attempts, %d resend(s)\n",
			res.OutboxID, res.Status, res.MaxAttempts, res.Resends)
		return nil
	})
}

// eachOutboxEntry runs act for each outbox id of the command line of
// `outbox <action> ID…`, whose entries must be in status what.
func eachOutboxEntry(ctx context.Context, args []string, action, what string, stderr io.Writer, act func(c *client, id string) error) error {
	fs, newClient := newCommand("outbox "+action, "usage: streamops outbox "+action+" ID…", stderr)
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name the %s outbox entries to %s (their outbox_id)", what, action)
	}
	for _, id := range fs.Args() {
		if err := act(c, id); err != nil {
			return fmt.Errorf("%s %s: %w", action, id, err)
		}
	}
	return nil
}

// showOutboxEntry prints one outbox entry and its delivery log as a
// table (GET /api/outbox/{id}).
func showOutboxEntry(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("outbox show", "usage: streamops outbox show ID", stderr)
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one outbox entry (its outbox_id)")
	}
	var e httpapi.OutboxEntryResponse
	if err := c.do(ctx, "GET", "/api/outbox/"+url.PathEscape(fs.Arg(0)), nil, nil, &e); err != nil {
		return err
	}
	printOutboxEntry(stdout, e)
	return nil
}

// printOutboxEntry writes e's summary and its delivery log, one attempt a
// row, the answer's body on one line and shortened.
func printOutboxEntry(w io.Writer, e httpapi.OutboxEntryResponse) {
	fmt.Fprintf(w, "%s  %s → %s  %s %s/%s\n", e.OutboxID, e.EventType, e.TargetProvider, e.Status, e.AggregateType, e.AggregateID)
	fmt.Fprintf(w, "attempts %d/%d, requeues %d, resends %d, created %s", e.Attempts, e.MaxAttempts, e.Requeues, e.Resends,
		e.CreatedAt.UTC().Format(time.RFC3339))
	if e.TraceID != "" {
		fmt.Fprintf(w, ", trace %s", e.TraceID)
	}
	fmt.Fprintln(w)
	if e.LastError != "" {
		fmt.Fprintf(w, "last error: %s\n", oneLine(e.LastError, 200))
	}
	if len(e.DeliveryLog) == 0 {
		fmt.Fprintln(w, "no delivery attempt yet.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tAT\tDURATION\tSTATUS\tOUTCOME\tERROR\tANSWER")
	for i, a := range e.DeliveryLog {
		code := "-"
		if a.StatusCode != 0 {
			code = fmt.Sprint(a.StatusCode)
		}
		fmt.Fprintf(tw, "%d\t%s\t%dms\t%s\t%s\t%s\t%s\n", i+1, a.At.UTC().Format("2006-01-02T15:04:05.000Z"), a.DurationMs,
			code, a.Outcome, oneLine(a.Error, 60), oneLine(a.ResponseBody, 80))
	}
	_ = tw.Flush()
}

// oneLine is s on one line (tabs and line breaks as spaces), cut to max
// runes with "…".
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
