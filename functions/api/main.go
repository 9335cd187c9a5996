// Command api is the StreamOps API Lambda behind API Gateway's /api/…:
// workflow and task submissions and their state.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/submit"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("api")))
	svc := app.Must(submit.New(a.Store, a.Emitter, nil, a.Logger))
	lambda.Start(apigw.Handler(httpapi.API(svc, a.Store, a.Logger)))
}
