package app

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/config"
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
	lambda.Start(Must(handler(ctx, a, cfg)))
}
