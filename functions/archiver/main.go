// Command archiver is the StreamOps archiver Lambda (EventBridge Scheduler). It is a
// stub until its issue lands: every invocation reports "not implemented".
package main

import (
	"context"
	"errors"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func handle(_ context.Context, _ events.EventBridgeEvent) error {
	return errors.New("archiver: not implemented")
}

func main() { lambda.Start(handle) }
