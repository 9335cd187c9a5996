package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
)

// partnersTest is `streamops partners test ID [-event-type T]`: the API
// signs the catalog's example of T (default workflow.completed) and sends
// it to the partner's endpoint at once; this prints what the endpoint
// answered. An endpoint that did not accept it (no 2xx, or no answer) is
// exit status 1 after the report, so a script can check an endpoint.
func partnersTest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := "usage: streamops partners test PARTNER_ID [-event-type T]"
	fs, newClient := newCommand("partners test", usage, stderr)
	eventType := fs.String("event-type", "", "the event type whose example is sent (GET /api/event-types); default "+string(httpapi.DefaultTestEventType))
	// The id may come before the flags or after them.
	id, err := partnerIDArg(fs, args, usage)
	if err != nil {
		return err
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	var body any
	if *eventType != "" {
		body = httpapi.TestSendRequest{EventType: events.Type(*eventType)}
	}
	var res httpapi.TestSendResponse
	if err := c.do(ctx, "POST", "/api/partners/"+url.PathEscape(id)+"/test", nil, body, &res); err != nil {
		return fmt.Errorf("test %s: %w", id, err)
	}
	fmt.Fprint(stdout, describeTestSend(res))
	if !res.Delivered {
		return errors.New(id + " did not accept the test")
	}
	return nil
}

// describeTestSend is the report of a test send, one field a line: what
// was sent, the status, the duration and the answer's excerpt.
func describeTestSend(r httpapi.TestSendResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sent      %s %s to %s (webhook-id %s)\n", r.EventType, r.EventID, r.PartnerID, r.WebhookID)
	switch {
	case r.StatusCode == 0:
		fmt.Fprintf(&b, "status    no answer\n")
	case r.Delivered:
		fmt.Fprintf(&b, "status    %d (delivered)\n", r.StatusCode)
	default:
		fmt.Fprintf(&b, "status    %d (not delivered)\n", r.StatusCode)
	}
	fmt.Fprintf(&b, "duration  %s\n", (time.Duration(r.DurationMs) * time.Millisecond).String())
	if r.RetryAfter != "" {
		fmt.Fprintf(&b, "retry     after %s\n", r.RetryAfter)
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "error     %s\n", r.Error)
	}
	if r.ResponseBody != "" {
		fmt.Fprintf(&b, "answer    %s\n", oneLine(r.ResponseBody, 1024))
	}
	return b.String()
}
