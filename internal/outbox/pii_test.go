package outbox_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/runlog"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/testenv"
)

// refusal is a partner's answer quoting testenv.Personal, and redactions
// what stands in for each where StreamOps keeps the answer.
var (
	refusal = fmt.Sprintf(`{"error":"customer rejected","customer":{"contact":%q,"tel":%q},"card":%q,"payout":%q}`,
		testenv.Personal[0], testenv.Personal[1], testenv.Personal[2], testenv.Personal[3])
	redactions = []string{"[redacted:email]", "[redacted:phone]", "[redacted:card]", "[redacted:iban]"}
)

// TestAPartnersAnswerIsKeptWithoutThePersonalDataItQuotes: a real partner
// endpoint refuses a delivery with a body that quotes an email, a phone
// number, a card number and an IBAN, until the entry is dead-lettered.
// None of them is then in clear in the entry's last_error, its delivery
// log, its partner_events row, the partner's breaker, the
// delivery.dead_lettered (and partner.breaker.opened) events of the
// history and the operations topic, or the relay's log lines; the body
// itself is kept, scrubbed, for the operator.
func TestAPartnersAnswerIsKeptWithoutThePersonalDataItQuotes(t *testing.T) {
	tests := []struct {
		name string
		code int
		runs int  // relay runs until the entry is dead-lettered
		trip bool // the failures open the partner's breaker
	}{
		{"400: refused for good at once", http.StatusBadRequest, 1, false},
		{"422: refused for good at once", http.StatusUnprocessableEntity, 1, false},
		{"500 until the attempts run out", http.StatusInternalServerError, 5, true},
		{"502 until the attempts run out", http.StatusBadGateway, 5, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.code)
				_, _ = w.Write([]byte(refusal))
			}))
			t.Cleanup(srv.Close)
			var logs testenv.Output
			logger := runlog.New(&logs, slog.LevelDebug) // as the programs build theirs
			ctx := context.Background()
			ids := h.enqueue(t, "acme", 1)
			r := h.relay(t, func(c *outbox.Config) {
				c.Logger = logger
				c.Operations = opsevents.New(h.Emitter, logger)
				c.Partners["acme"] = outbox.Partner{ID: "acme", Name: "Acme Corp", URL: srv.URL}
			})
			for range tc.runs {
				_, err := r.Run(ctx)
				require.NoError(t, err)
				h.clock.Advance(time.Minute)
			}

			entry, err := h.Store.GetOutboxEntry(ctx, ids[0])
			require.NoError(t, err)
			require.Equal(t, status.OutboxDeadLetter, entry.Status)
			require.Len(t, entry.DeliveryLog, tc.runs)
			last := entry.DeliveryLog[len(entry.DeliveryLog)-1]
			assert.Equal(t, tc.code, last.StatusCode)
			assert.Contains(t, last.ResponseBody, "customer rejected", "the answer is kept")
			for _, replacement := range redactions {
				assert.Contains(t, last.ResponseBody, replacement, "the delivery log shows what was removed")
				assert.Contains(t, entry.LastError, replacement, "last_error quotes the scrubbed answer")
			}
			copies := map[string]any{"the outbox entry (last_error, delivery log)": entry,
				"the partner_events row": partnerEventOf(t, h.Store, ids[0])}

			_, history := h.opsHistory(t)
			topic := h.Envelopes(t, events.TopicOperations)
			want := []events.Type{events.DeliveryDeadLettered}
			if tc.trip {
				want = append(want, events.PartnerBreakerOpened)
				eps, err := h.Store.PartnerEndpoints(ctx, "acme")
				require.NoError(t, err)
				assert.Contains(t, eps["acme"].LastError, "[redacted:email]")
				copies["the partner's breaker"] = eps["acme"]
			}
			assert.ElementsMatch(t, want, typesOf(history), "the history")
			assert.ElementsMatch(t, want, typesOf(topic), "the operations topic")
			for _, env := range history {
				if env.EventType == events.DeliveryDeadLettered {
					p, err := events.PayloadAs[events.DeliveryDeadLetteredPayload](env)
					require.NoError(t, err)
					assert.Equal(t, tc.code, p.StatusCode)
					assert.Equal(t, last.ResponseBody, p.ResponseBody, "the event carries the scrubbed answer")
				}
			}
			copies["the history's operational events"] = history
			copies["the operations topic"] = topic

			require.NotEmpty(t, logs.Records("partner delivery attempt"), logs.String())
			require.NotEmpty(t, logs.Records("outbox entry dead-lettered"), logs.String())
			copies["the relay's log lines"] = logs.String()

			testenv.AssertNoneInClear(t, copies)
		})
	}
}

func typesOf(envs []events.Envelope) []events.Type {
	out := make([]events.Type, len(envs))
	for i, env := range envs {
		out[i] = env.EventType
	}
	return out
}
