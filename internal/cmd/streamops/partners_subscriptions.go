package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/subscribe"
)

// partnersSubscriptions is `streamops partners subscriptions ID
// [-event-types T,…] [-filter JSON] [-last N]`: the API evaluates the
// partner's subscriptions (or the one the flags give) against its latest
// N stored events and this prints which would be delivered to it and why
// the others would not. To change the subscriptions: partners update ID
// -subscriptions JSON.
func partnersSubscriptions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := "usage: streamops partners subscriptions PARTNER_ID [-event-types T,…] [-filter JSON] [-last N]"
	fs, newClient := newCommand("partners subscriptions", usage, stderr)
	types := fs.String("event-types", "", "test this subscription instead of the partner's: event types, comma-separated (workflow.completed, task.*, *)")
	filter := fs.String("filter", "", `with -event-types: a MongoDB query on the event ({"payload.name":"Invoice Sync"})`)
	last := fs.Int("last", 0, "how many of the latest stored events to test (default the API's, 100)")
	id, err := partnerIDArg(fs, args, usage)
	if err != nil {
		return err
	}
	var req httpapi.SubscriptionTestRequest
	switch {
	case *types != "":
		sub := subscribe.Subscription{EventTypes: strings.Split(*types, ",")}
		if *filter != "" {
			if !json.Valid([]byte(*filter)) {
				return fmt.Errorf("-filter: not JSON: %s", *filter)
			}
			sub.Filter = json.RawMessage(*filter)
		}
		req.Subscription = &sub
	case *filter != "":
		return fmt.Errorf("-filter needs -event-types: %s", usage)
	}
	if *last > 0 {
		req.Last = last
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	var res httpapi.SubscriptionTestResult
	if err := c.do(ctx, "POST", "/api/partners/"+url.PathEscape(id)+"/subscriptions/test", nil, req, &res); err != nil {
		return fmt.Errorf("subscriptions of %s: %w", id, err)
	}
	fmt.Fprint(stdout, describeSubscriptionTest(res))
	return nil
}

// describeSubscriptionTest is the report of a subscription test: the
// subscriptions, then one line per event evaluated.
func describeSubscriptionTest(r httpapi.SubscriptionTestResult) string {
	var b strings.Builder
	if len(r.Subscriptions) == 0 {
		fmt.Fprintf(&b, "%s has no subscription\n", r.PartnerID)
	}
	for i, s := range r.Subscriptions {
		fmt.Fprintf(&b, "subscription %d  %s", i, strings.Join(s.EventTypes, ","))
		if len(s.Filter) > 0 {
			fmt.Fprintf(&b, "  filter %s", s.Filter)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%d events evaluated, %d matched\n", r.Evaluated, len(r.Matched))
	for _, e := range r.Matched {
		fmt.Fprintf(&b, "match     %s %s (subscription %d)\n", e.EventType, e.EventID, *e.Subscription)
	}
	for _, e := range r.Unmatched {
		fmt.Fprintf(&b, "no match  %s %s (%s)\n", e.EventType, e.EventID, e.Reason)
	}
	return b.String()
}
