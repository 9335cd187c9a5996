package app

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/tracing"
)

// Start is a function's main: it reads the function's configuration T from
// the environment, opens the App of function name with it (NewConfig,
// Open), builds the function's Lambda handler with handler and hands it to
// the Lambda runtime. A variable that does not parse, or opening or
// building failing, ends the cold start (Must).
func Start[T config.App](name string, handler func(ctx context.Context, a *App, cfg T) (any, error)) {
	ctx := context.Background()
	cfg := Must(config.FromEnv[T]())
	a := Must(Open(ctx, NewConfig(name, cfg)))
	h := Must(handler(ctx, a, cfg))
	lambda.StartHandler(Traced(a, lambda.NewHandlerWithOptions(h, lambda.WithContext(tracing.WithProvider(ctx, a.Tracing)))))
}

// Traced wraps a Lambda handler so each invocation starts its spans with
// a.Tracing and exports them before it returns: Lambda may freeze the
// instance as soon as the handler answers, and a span left in the batch
// would leave with it.
func Traced(a *App, h lambda.Handler) lambda.Handler { return traced{a: a, h: h} }

type traced struct {
	a *App
	h lambda.Handler
}

// Invoke runs the invocation, then flushes its spans.
func (t traced) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	ctx = tracing.WithProvider(ctx, t.a.Tracing)
	out, err := t.h.Invoke(ctx, payload)
	if ferr := t.a.Tracing.Flush(ctx); ferr != nil {
		t.a.Logger.WarnContext(ctx, "spans not exported", "error", ferr)
	}
	return out, err
}
