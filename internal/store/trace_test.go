package store_test

import (
	"cmp"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/tracing"
)

// Every store command is one CLIENT span, a child of the caller's span,
// named "<command> <collection>" with the OpenTelemetry database
// attributes; with tracing off nothing is recorded.
func TestEveryStoreCommandIsOneClientSpan(t *testing.T) {
	cfg := storetest.Configure(t, store.Config{})
	s, err := store.Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	database := cmp.Or(cfg.Database, "streamops")
	env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), map[string]string{"n": "1"})

	tests := []struct {
		name string
		op   func(ctx context.Context) error
		want []string // "<db.operation.name> <db.collection.name>", in order
	}{
		{"insert one", func(ctx context.Context) error { return s.InsertEvent(ctx, env) }, []string{"insert events"}},
		{"find one", func(ctx context.Context) error { _, err := s.GetEvent(ctx, env.EventID); return err }, []string{"find events"}},
		{"bulk insert", func(ctx context.Context) error {
			_, err := s.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: "out-1", TargetProvider: "acme", Payload: store.JSONDoc(`{}`)})
			return err
		}, []string{"bulkWrite integration_outbox"}},
		{"claim: blocked partners, find, update, find", func(ctx context.Context) error {
			_, err := s.ClaimDue(ctx, time.Now().Add(time.Minute), time.Minute, 10)
			return err
		}, []string{"find partner_endpoints", "find integration_outbox", "update integration_outbox", "find integration_outbox"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			p, err := tracing.New(tracing.Config{Enabled: true, SampleRatio: 1, Exporter: exp})
			require.NoError(t, err)
			defer func() { _ = p.Shutdown(context.Background()) }()
			ctx, parent := tracing.Start(tracing.WithProvider(context.Background(), p), "caller")
			require.NoError(t, tc.op(ctx))
			parent.End()
			require.NoError(t, p.Flush(ctx))
			var got []string
			for _, sp := range exp.GetSpans() {
				if sp.Name == "caller" {
					continue
				}
				got = append(got, sp.Name)
				assert.Equal(t, trace.SpanKindClient, sp.SpanKind)
				assert.Equal(t, parent.SpanContext().SpanID(), sp.Parent.SpanID(), "a child of the caller's span")
				attrs := attribute.NewSet(sp.Attributes...)
				value := func(k attribute.Key) string { v, _ := attrs.Value(k); return v.AsString() }
				assert.Equal(t, "mongodb", value("db.system.name"))
				assert.Equal(t, database, value("db.namespace"))
				assert.Equal(t, sp.Name, value("db.operation.name")+" "+value("db.collection.name"))
			}
			assert.Equal(t, tc.want, got)
		})
	}

	t.Run("a command outside any trace starts none", func(t *testing.T) {
		exp := tracetest.NewInMemoryExporter()
		p, err := tracing.New(tracing.Config{Enabled: true, SampleRatio: 1, Exporter: exp})
		require.NoError(t, err)
		defer func() { _ = p.Shutdown(context.Background()) }()
		_, err = s.GetEvent(tracing.WithProvider(context.Background(), p), env.EventID)
		require.NoError(t, err)
		require.NoError(t, p.Flush(context.Background()))
		assert.Empty(t, exp.GetSpans(), "no trace of one store command")
	})

	t.Run("tracing off records nothing", func(t *testing.T) {
		rec := tracetest.NewSpanRecorder()
		sdk := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		defer func() { _ = sdk.Shutdown(context.Background()) }()
		// A disabled Provider in ctx, under a recording parent of another
		// SDK: the store's spans come only from ctx's Provider.
		ctx, parent := sdk.Tracer("t").Start(tracing.WithProvider(context.Background(), &tracing.Provider{}), "caller")
		_, err := s.GetEvent(ctx, env.EventID)
		require.NoError(t, err)
		parent.End()
		require.Len(t, rec.Ended(), 1, "only the caller's own span")
	})
}
