// Command workflow-processor is the StreamOps workflow-processor Lambda (MSK event source). It is a stub
// until its issue lands: it fails every batch, so the event source mapping
// keeps the records instead of dropping them.
package main

import (
	"context"
	"errors"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func handle(_ context.Context, _ events.KafkaEvent) error {
	return errors.New("workflow-processor: not implemented")
}

func main() { lambda.Start(handle) }
