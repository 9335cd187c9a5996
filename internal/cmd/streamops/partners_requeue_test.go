package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpsPartnersRequeueCountsAsksAndConfirms: `streamops partners
// requeue ID` prints how many of the partner's dead letters match, asks,
// and requeues exactly that count; a "no", or nothing matching, changes
// nothing; bad flags are refused before any request.
func TestOpsPartnersRequeueCountsAsksAndConfirms(t *testing.T) {
	for _, c := range []struct {
		name, stdin string
		args        []string
		code        int
		out, errOut string
		requeued    bool
	}{
		{"yes on the terminal", "y\n", []string{"partners", "requeue", "acme"}, 0,
			"1 dead-lettered deliveries of acme match.\nrequeue these 1 deliveries, each as a new round? [y/N] requeued 1 deliveries of acme.\n", "", true},
		{"-yes", "", []string{"partners", "requeue", "acme", "-yes"}, 0,
			"1 dead-lettered deliveries of acme match.\nrequeued 1 deliveries of acme.\n", "", true},
		{"no", "n\n", []string{"partners", "requeue", "acme"}, 1, "", "aborted", false},
		{"no input at all", "", []string{"partners", "requeue", "acme"}, 1, "", "aborted", false},
		{"an event type none has", "", []string{"partners", "requeue", "acme", "-event-type", "NOPE", "-yes"}, 0,
			"0 dead-lettered deliveries of acme match.\n", "", false},
		{"since in the future", "", []string{"partners", "requeue", "acme", "-since", "2999-01-01T00:00:00Z", "-yes"}, 0,
			"0 dead-lettered deliveries of acme match.\n", "", false},
		{"a bad since", "", []string{"partners", "requeue", "acme", "-since", "yesterday"}, 1, "", "-since: \"yesterday\" is not an RFC 3339 time", false},
		{"no partner", "", []string{"partners", "requeue"}, 1, "", "name one partner", false},
		{"no subcommand", "", []string{"partners"}, 1, "", "name a subcommand: requeue", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newAPI(t)
			id := a.OutboxEntryIn(t, "evt-ops-bulk", "acme", "dead_letter")
			code, out, errOut := a.ops(t, c.stdin, c.args...)
			assert.Equal(t, c.code, code, errOut)
			if c.code == 0 {
				assert.Equal(t, c.out, out)
			}
			assert.Contains(t, errOut, c.errOut)
			e, err := a.Store.GetOutboxEntry(context.Background(), id)
			require.NoError(t, err)
			want := "dead_letter"
			if c.requeued {
				want = "pending"
			}
			assert.Equal(t, want, e.Status)
		})
	}
}

// TestOpsOutboxShowAndResend: `streamops outbox show ID` prints the
// entry and its delivery log as a table; `outbox resend ID` sends a
// completed entry again and refuses another status.
func TestOpsOutboxShowAndResend(t *testing.T) {
	a := newAPI(t)
	dead := a.OutboxEntryIn(t, "evt-ops-show", "acme", "dead_letter")
	code, out, errOut := a.ops(t, "", "outbox", "show", dead)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, dead+"  OR_MGMT → acme  dead_letter Order/order-evt-ops-show\n")
	assert.Contains(t, out, "last error: HTTP 410\n")
	assert.Regexp(t, `(?m)^#\s+AT\s+DURATION\s+STATUS\s+OUTCOME\s+ERROR\s+ANSWER\n1\s+\S+Z\s+12ms\s+410\s+dead_letter\s+HTTP 410`, out)

	done := a.OutboxEntryIn(t, "evt-ops-resend", "acme", "completed")
	code, out, errOut = a.ops(t, "", "outbox", "resend", done)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "resent "+done+": now pending, a new round of 5 attempts, 1 resend(s)\n", out)
	code, _, errOut = a.ops(t, "", "outbox", "resend", dead)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "409 status_conflict")
	assert.Contains(t, errOut, "resend applies to completed only")
	code, _, errOut = a.ops(t, "", "outbox", "show")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "name one outbox entry")
}
