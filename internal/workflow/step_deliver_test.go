package workflow

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/tracing"
)

// The outbox entry carries the enqueuing step's trace context, so the
// relay's delivery continues the workflow's trace; a step without one
// enqueues an entry without.
func TestDeliverCarriesTheStepsTraceToTheOutboxEntry(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name              string
		ctx               context.Context
		traceparent, want string
	}{
		{"traced", tracing.FromTraceparent(context.Background(), tp, ""), tp, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"untraced", context.Background(), "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := stepInput(t, `{"records":[{"a":1}],"deliver":{"target":"acme"}}`)
			_, err := DeliverStep(tc.ctx, in)
			require.NoError(t, err)
			require.Len(t, in.Effects.outbox, 1)
			assert.Equal(t, tc.traceparent, in.Effects.outbox[0].TraceParent)
			assert.Equal(t, tc.want, in.Effects.outbox[0].TraceID)
		})
	}
}
