// Command api is the StreamOps api Lambda (API Gateway HTTP API). It is a
// stub until its issue lands: every request is answered 501 with the
// project's JSON error shape, so a deployed stack fails loudly, not silently.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func handle(_ context.Context, _ events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return events.APIGatewayV2HTTPResponse{
		StatusCode: 501,
		Headers:    map[string]string{"content-type": "application/json"},
		Body:       `{"error":{"code":"not_implemented","message":"the api function is not implemented yet"}}`,
	}, nil
}

func main() { lambda.Start(handle) }
