package app

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"
)

// Start is a function's main: it opens the App of function name from the
// environment (FromEnv, Open), builds the function's Lambda handler with
// handler and hands it to the Lambda runtime. Opening or building failing
// ends the cold start (Must).
func Start(name string, handler func(ctx context.Context, a *App) (any, error)) {
	ctx := context.Background()
	a := Must(Open(ctx, FromEnv(name)))
	lambda.Start(Must(handler(ctx, a)))
}
