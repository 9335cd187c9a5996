package main

import (
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// Event source mapping settings, the same for both topics.
const (
	// esmBatchSize: up to 100 records per invocation, the MSK default; a
	// batch is one store round trip per record, so bigger batches only
	// lengthen the retry of a failed one.
	esmBatchSize = 100
	// esmBatchingWindowSeconds: wait at most 1 s to fill a batch. Events
	// drive user-visible workflow progress, so latency beats fewer calls.
	esmBatchingWindowSeconds = 1
	// esmRetryAttempts: a failing batch is retried (and bisected) up to 10
	// times before its records' coordinates go to the on-failure queue.
	// Processors dead-letter poison records themselves (<topic>.dlq), so
	// exhausting this means a dependency has been down for a long time.
	esmRetryAttempts = 10
	// esmMaxRecordAgeHours: records older than a day are skipped to the
	// on-failure queue, which holds their partition and offsets. The topics
	// keep 7 days, so six days remain to replay them from Kafka.
	esmMaxRecordAgeHours = 24
	// esmMinPollers: provisioned mode, which Lambda requires for the retry,
	// record-age and bisect controls on Kafka mappings.
	esmMinPollers = 1
)

// consumerGroupID is the Kafka consumer group of function name's mapping;
// fixed (not the mapping's UUID) so the IAM policy can name it.
func consumerGroupID(name string) string { return "streamops-" + name }

// clusterResourceArn turns the cluster ARN into the ARN of one of its
// topics or groups: arn:…:cluster/<name>/<uuid> → arn:…:<kind>/<name>/<uuid>/<resource>.
func clusterResourceArn(clusterArn, kind, resource string) string {
	return strings.Replace(clusterArn, ":cluster/", ":"+kind+"/", 1) + "/" + resource
}

// kafkaStatements are the MSK data-plane permissions of spec's role. The
// CDK grants only the control-plane calls a mapping makes
// (kafka:DescribeCluster, GetBootstrapBrokers); with IAM authentication
// every Kafka request is authorized against these kafka-cluster actions.
func kafkaStatements(cfg Config, spec functionSpec) []awsiam.PolicyStatement {
	cluster := cfg.MSKClusterArn
	topics := func(names ...string) *[]*string {
		var arns []*string
		for _, n := range names {
			arns = append(arns, jsii.String(clusterResourceArn(cluster, "topic", n)))
		}
		return &arns
	}
	statements := []awsiam.PolicyStatement{
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("KafkaConnect"),
			Actions:   jsii.Strings("kafka-cluster:Connect"),
			Resources: jsii.Strings(cluster),
		}),
	}
	if spec.kafka == kafkaConnect {
		return statements
	}
	writeTo := []string{topicWorkflows, topicTasks}
	if spec.kafka == kafkaConsume {
		writeTo = append(writeTo, spec.consumes+dlqSuffix)
	}
	statements = append(statements,
		// franz-go's producer is idempotent (internal/bus), which with IAM
		// auth needs this cluster-level action for InitProducerId.
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("KafkaIdempotentProducer"),
			Actions:   jsii.Strings("kafka-cluster:WriteDataIdempotently"),
			Resources: jsii.Strings(cluster),
		}),
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("KafkaProduce"),
			Actions:   jsii.Strings("kafka-cluster:DescribeTopic", "kafka-cluster:WriteData"),
			Resources: topics(writeTo...),
		}),
	)
	if spec.kafka != kafkaConsume {
		return statements
	}
	return append(statements,
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("KafkaConsumeCluster"),
			Actions:   jsii.Strings("kafka-cluster:DescribeClusterDynamicConfiguration", "kafka:DescribeClusterV2", "kafka:GetBootstrapBrokers"),
			Resources: jsii.Strings(cluster),
		}),
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("KafkaConsumeTopic"),
			Actions:   jsii.Strings("kafka-cluster:DescribeTopic", "kafka-cluster:ReadData"),
			Resources: topics(spec.consumes),
		}),
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("KafkaConsumeGroup"),
			Actions:   jsii.Strings("kafka-cluster:DescribeGroup", "kafka-cluster:AlterGroup"),
			Resources: jsii.Strings(clusterResourceArn(cluster, "group", consumerGroupID(spec.name))),
		}),
	)
}

// eniStatement lets the function, and the mapping's pollers acting with its
// role, create and clean up network interfaces in the cluster's subnets.
// The CDK attaches AWS-managed policies with these too; stating them keeps
// the grant from hinging on what those policies contain. EC2 does not
// scope these actions to resources.
func eniStatement() awsiam.PolicyStatement {
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid: jsii.String("VpcNetworkInterfaces"),
		Actions: jsii.Strings(
			"ec2:CreateNetworkInterface", "ec2:DescribeNetworkInterfaces", "ec2:DeleteNetworkInterface",
			"ec2:DescribeVpcs", "ec2:DescribeSubnets", "ec2:DescribeSecurityGroups",
		),
		Resources: jsii.Strings("*"),
	})
}

// newFailureQueue is an SQS queue that holds what could not be delivered:
// a mapping's skipped-record coordinates or a schedule's failed invocation.
// Fourteen days, SQS's longest retention, leaves time to replay.
func newFailureQueue(stack awscdk.Stack, id string) awssqs.Queue {
	return awssqs.NewQueue(stack, jsii.String(id), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
	})
}

// addTopicConsumer maps spec's topic onto fn and returns the mapping's
// on-failure queue.
func addTopicConsumer(stack awscdk.Stack, cfg Config, fn awslambda.Function, spec functionSpec) awssqs.Queue {
	onFailure := newFailureQueue(stack, constructID(spec.name)+"OnFailure")
	fn.AddEventSource(awslambdaeventsources.NewManagedKafkaEventSource(&awslambdaeventsources.ManagedKafkaEventSourceProps{
		ClusterArn: jsii.String(cfg.MSKClusterArn),
		Topic:      jsii.String(spec.consumes),
		// Seed 003: a new consumer starts at the end of the topic; what was
		// published before it existed is the retry-sweeper's to republish.
		StartingPosition:   awslambda.StartingPosition_LATEST,
		ConsumerGroupId:    jsii.String(consumerGroupID(spec.name)),
		BatchSize:          jsii.Number(esmBatchSize),
		MaxBatchingWindow:  awscdk.Duration_Seconds(jsii.Number(esmBatchingWindowSeconds)),
		BisectBatchOnError: jsii.Bool(true),
		RetryAttempts:      jsii.Number(esmRetryAttempts),
		MaxRecordAge:       awscdk.Duration_Hours(jsii.Number(esmMaxRecordAgeHours)),
		OnFailure:          awslambdaeventsources.NewSqsDlq(onFailure),
		ProvisionedPollerConfig: &awslambdaeventsources.ProvisionedPollerConfig{
			MinimumPollers: jsii.Number(esmMinPollers),
			MaximumPollers: jsii.Number(float64(cfg.MSKMaxPollers)),
		},
	}))
	return onFailure
}
