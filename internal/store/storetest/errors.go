package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// testRejectedDocuments: a document no engine can store is a permanent
// *InvalidDocumentError naming the field, the same on every engine, and
// nothing of it is stored.
func testRejectedDocuments(t *testing.T, open Opener) {
	s := open(t, store.Config{Now: NewClock().Now})
	huge := `{"blob":"` + strings.Repeat("x", store.MaxDocumentSize) + `"}`
	tests := []struct {
		name, field string
		write       func(ctx context.Context) error
		stored      func(ctx context.Context) error
	}{
		{"webhook body key with a NUL byte", "data.a\x00b",
			func(ctx context.Context) error {
				_, err := s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "p", ProviderEventID: "nul", Payload: store.JSONDoc(`{"data":{"a\u0000b":1}}`)})
				return err
			},
			func(ctx context.Context) error {
				_, err := s.GetWebhookEvent(ctx, store.WebhookEventID("p", "nul"))
				return err
			}},
		{"workflow input key with a NUL byte inside an array", "input.records.1.\x00",
			func(ctx context.Context) error {
				_, err := s.CreateWorkflow(ctx, store.Workflow{WorkflowID: "wf-nul", Name: "n", Steps: []string{"validate"}, Priority: "low",
					Input: store.JSONDoc(`{"records":[{"ok":1},{"\u0000":2}]}`), EventID: "evt-1"})
				return err
			},
			func(ctx context.Context) error {
				_, err := s.GetWorkflow(ctx, "wf-nul")
				return err
			}},
		{"event payload key with a NUL byte", "input.k\x00",
			func(ctx context.Context) error {
				env := workflowCreated(time.Now())
				env.Payload = []byte(`{"workflowId":"wf-x","input":{"k\u0000":true}}`)
				env.EventID = "evt-nul-" + uuid.NewString()
				err := s.InsertEvent(ctx, env)
				if err == nil {
					_, err = s.GetEvent(ctx, env.EventID)
					return errors.Join(errors.New("stored"), err)
				}
				return err
			},
			nil},
		{"webhook body over 16 MiB", "",
			func(ctx context.Context) error {
				_, err := s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "p", ProviderEventID: "huge", Payload: store.JSONDoc(huge)})
				return err
			},
			func(ctx context.Context) error {
				_, err := s.GetWebhookEvent(ctx, store.WebhookEventID("p", "huge"))
				return err
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.write(ctx(t))
			require.ErrorIs(t, err, store.ErrInvalidDocument)
			assert.NotErrorIs(t, err, store.ErrUnavailable, "permanent, not transient")
			var invalid *store.InvalidDocumentError
			require.ErrorAs(t, err, &invalid)
			assert.Equal(t, tc.field, invalid.Field)
			if tc.stored != nil {
				assert.ErrorIs(t, tc.stored(ctx(t)), store.ErrNotFound, "nothing half-stored")
			}
		})
	}
}

// testTransientErrors: a command whose deadline has passed, or whose
// caller gave up, is ErrUnavailable on every engine (the embedded engine
// would otherwise run it, or answer "not found").
func testTransientErrors(t *testing.T, open Opener) {
	s := open(t, store.Config{Now: NewClock().Now})
	expired, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	cancelled, stop := context.WithCancel(context.Background())
	stop()
	for name, c := range map[string]context.Context{"deadline passed": expired, "caller gave up": cancelled} {
		t.Run(name, func(t *testing.T) {
			_, err := s.InsertWebhookEvent(c, store.WebhookEvent{Provider: "p", ProviderEventID: name})
			assert.ErrorIs(t, err, store.ErrUnavailable, "insert")
			_, err = s.GetWebhookEvent(c, store.WebhookEventID("p", name))
			assert.ErrorIs(t, err, store.ErrUnavailable, "find one")
			assert.NotErrorIs(t, err, store.ErrNotFound)
			_, _, err = s.FindEvents(c, store.ReplayFilter{}, nil, 10)
			assert.ErrorIs(t, err, store.ErrUnavailable, "find")
			_, err = s.GetWebhookEvent(ctx(t), store.WebhookEventID("p", name))
			assert.ErrorIs(t, err, store.ErrNotFound, "the refused insert did not happen")
		})
	}
}

// testUpsertRace: writers racing to create the same projection by upsert
// make one document and no error.
func testUpsertRace(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	cp := store.WorkflowCheckpoint{Workflow: store.Workflow{ID: "wf-race", WorkflowID: "wf-race", Name: "race",
		Steps: []string{"validate", "store"}, Priority: "low", Status: status.WorkflowProcessing, EventID: "evt-race", CreatedAt: clock.Now()}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := s.SaveWorkflowCheckpoints(context.Background(), cp)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	got, err := s.GetWorkflowCheckpoints(ctx(t), []string{"wf-race"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, status.WorkflowProcessing, got["wf-race"].Status)
}

// testNumbersAsSent: every number comes back with the value it was sent
// with (integers past int64 and decimals past a double included), and a
// number no BSON type holds exactly is refused, never rounded.
func testNumbersAsSent(t *testing.T, open Opener) {
	s := open(t, store.Config{Now: NewClock().Now})
	tests := []struct {
		name, number string
		want         string // "" when the number must be refused
	}{
		{"int32", "42", "42"},
		{"past 2^53", "9007199254740993", "9007199254740993"},
		{"past int64", "123456789012345678901234567890", "123456789012345678901234567890"},
		{"negative past int64", "-98765432109876543210", "-98765432109876543210"},
		{"a double", "0.1", "0.1"},
		{"a double with an exponent", "2.5e-8", "2.5e-8"},
		{"more digits than a double keeps", "0.10000000000000000001", "0.10000000000000000001"},
		{"past a double's range", "1e400", "1E+400"},
		{"past every range", "1e9999", ""},
		{"more digits than Decimal128 keeps", "3.14159265358979323846264338327950288419716939937510", ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprint("num-", i)
			_, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "p", ProviderEventID: id,
				Payload: store.JSONDoc(`{"order":{"amount":` + tc.number + `}}`)})
			if tc.want == "" {
				var invalid *store.InvalidDocumentError
				require.ErrorAs(t, err, &invalid)
				assert.Equal(t, "order.amount", invalid.Field)
				return
			}
			require.NoError(t, err)
			got, err := s.GetWebhookEvent(ctx(t), store.WebhookEventID("p", id))
			require.NoError(t, err)
			var back struct{ Order struct{ Amount json.Number } }
			require.NoError(t, json.Unmarshal(got.Payload, &back), string(got.Payload))
			assert.True(t, sameValue(t, tc.number, string(back.Order.Amount)), "sent %s, stored %s", tc.number, back.Order.Amount)
		})
	}
}

// sameValue compares two number literals by exact decimal value.
func sameValue(t *testing.T, a, b string) bool {
	ra, ok := new(big.Rat).SetString(a)
	require.True(t, ok, a)
	rb, ok := new(big.Rat).SetString(b)
	require.True(t, ok, b)
	return ra.Cmp(rb) == 0
}
