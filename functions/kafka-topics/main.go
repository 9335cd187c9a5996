// Command kafka-topics is the StreamOps stack's CloudFormation custom
// resource that creates the Kafka topics on MSK (internal/bus's table:
// seed 003's topics and their dead-letter topics), with the IAM auth the
// functions use. Delete leaves the topics (provision.Topics).
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/cfn"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/provision"
)

func main() {
	cfg := app.Must(config.FromEnv[config.KafkaTopics]())
	client := app.Must(app.OpenKafka(context.Background(), cfg.Kafka))
	lambda.Start(cfn.LambdaWrap(provision.Topics{Admin: client, Partitions: cfg.Topics.Partitions}.Handle))
}
