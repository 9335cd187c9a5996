package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/status"
)

// deadLetterPage is GET /api/dead-letters.
type deadLetterPage struct {
	DeadLetters []httpapi.DeadLetterResponse `json:"deadLetters"`
	NextCursor  string                       `json:"nextCursor"`
}

// deadLetterSelection are the flags that select dead letters.
type deadLetterSelection struct {
	topic, status, eventType string
	limit                    int
}

func addSelectionFlags(fs *flag.FlagSet) *deadLetterSelection {
	s := &deadLetterSelection{}
	fs.StringVar(&s.topic, "topic", "", "only this topic's, e.g. tasks")
	fs.StringVar(&s.status, "status", status.DeadLetterOpen, "open, replayed, discarded, or all")
	fs.StringVar(&s.eventType, "event-type", "", "only those of this event type")
	fs.IntVar(&s.limit, "limit", 100, "at most this many, 1 to 1000")
	return s
}

func (s *deadLetterSelection) query() url.Values {
	q := url.Values{"limit": {strconv.Itoa(s.limit)}}
	if s.topic != "" {
		q.Set("topic", s.topic)
	}
	if s.status != "" { // "all" too: the API reads it as no filter
		q.Set("status", s.status)
	}
	if s.eventType != "" {
		q.Set("event_type", s.eventType)
	}
	return q
}

// deadLetters is `streamops dead-letters [list|requeue]`.
func deadLetters(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "list", "ls":
		return listDeadLetters(ctx, args, stdout, stderr)
	case "requeue":
		return requeueDeadLetters(ctx, args, stdin, stdout, stderr)
	}
	return fmt.Errorf("unknown subcommand %q: list or requeue", sub)
}

func listDeadLetters(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("dead-letters list", "", stderr)
	sel := addSelectionFlags(fs)
	asJSON := fs.Bool("json", false, "print each dead letter as one JSON line")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	var page deadLetterPage
	if err := c.do(ctx, "GET", "/api/dead-letters", sel.query(), nil, &page); err != nil {
		return err
	}
	if *asJSON {
		for _, d := range page.DeadLetters {
			b, err := json.Marshal(d)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s\n", b)
		}
		return nil
	}
	if len(page.DeadLetters) == 0 {
		fmt.Fprintln(stdout, "no dead letters.")
		return nil
	}
	printDeadLetters(stdout, page.DeadLetters)
	if page.NextCursor != "" {
		fmt.Fprintf(stdout, "(more: raise -limit or narrow with -topic, -event-type)\n")
	}
	return nil
}

func printDeadLetters(w io.Writer, dls []httpapi.DeadLetterResponse) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRECEIVED\tPROCESSOR\tRECORD\tREASON\tSTATUS\tREQUEUES\tERROR")
	for _, d := range dls {
		msg := d.Error
		if len(msg) > 80 {
			msg = msg[:77] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s-%d@%d\t%s\t%s\t%d\t%s\n", d.DeadLetterID, d.ReceivedAt.UTC().Format(time.RFC3339),
			d.Processor, d.Topic, d.Partition, d.Offset, d.Reason, d.Status, d.RequeueAttempts, strings.ReplaceAll(msg, "\n", " "))
	}
	_ = tw.Flush()
}

// requeueDeadLetters requeues the dead letters named by id, or with -all
// those the selection flags match, after listing them and asking.
func requeueDeadLetters(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("dead-letters requeue", "usage: streamops dead-letters requeue ID… | -all [-topic T] [-status open] [-event-type E] [-limit N] [-yes]", stderr)
	sel := addSelectionFlags(fs)
	all := fs.Bool("all", false, "requeue every dead letter the selection flags match")
	yes := fs.Bool("yes", false, "with -all: requeue without asking")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	ids := fs.Args()
	switch {
	case *all && len(ids) > 0:
		return fmt.Errorf("pass dead letter ids or -all, not both")
	case !*all && len(ids) == 0:
		return fmt.Errorf("name the dead letters to requeue (ids from 'streamops dead-letters'), or pass -all")
	}
	if !*all {
		for _, id := range ids {
			var d httpapi.DeadLetterResponse
			if err := c.do(ctx, "POST", "/api/dead-letters/"+url.PathEscape(id)+"/requeue", nil, nil, &d); err != nil {
				return fmt.Errorf("requeue %s: %w", id, err)
			}
			fmt.Fprintf(stdout, "requeued %s (%s-%d@%d) to %s: now %s, %d requeue(s)\n", d.DeadLetterID, d.Topic, d.Partition, d.Offset,
				strings.TrimSuffix(d.Topic, ".dlq"), d.Status, d.RequeueAttempts)
		}
		return nil
	}
	var page deadLetterPage
	if err := c.do(ctx, "GET", "/api/dead-letters", sel.query(), nil, &page); err != nil {
		return err
	}
	if len(page.DeadLetters) == 0 {
		fmt.Fprintln(stdout, "no dead letters match.")
		return nil
	}
	printDeadLetters(stdout, page.DeadLetters)
	if !*yes && !confirm(stdin, stdout, fmt.Sprintf("requeue these %d dead letters? [y/N] ", len(page.DeadLetters))) {
		return errAborted
	}
	body := map[string]any{"limit": sel.limit}
	if sel.topic != "" {
		body["topic"] = sel.topic
	}
	if sel.eventType != "" {
		body["event_type"] = sel.eventType
	}
	if sel.status != "" { // "all": every status, as listed above; left out, the API requeues only open ones
		body["status"] = sel.status
	}
	var res struct {
		Requeued int `json:"requeued"`
	}
	if err := c.do(ctx, "POST", "/api/dead-letters/requeue", nil, body, &res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "requeued %d dead letters.\n", res.Requeued)
	return nil
}
