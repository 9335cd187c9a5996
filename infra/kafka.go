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

// esmMinPollers: provisioned mode, which Lambda requires for the retry,
// record-age and bisect controls on Kafka mappings (the console offers
// them only there). The other mapping
// settings are Config.Mapping (internal/eventsource/mapping.json, shared with the
// local stack).
const esmMinPollers = 1

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
	if spec.operations {
		writeTo = append(writeTo, topicOperations)
	}
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
// a schedule's failed invocation or the archiver's failed run.
// Fourteen days, SQS's longest retention, leaves time to replay.
func newFailureQueue(stack awscdk.Stack, id string) awssqs.Queue {
	q := awssqs.NewQueue(stack, jsii.String(id), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
	})
	const reason = "this queue is itself a dead-letter / on-failure destination, watched by an alarm: " +
		"what lands here is replayed by an operator, never redriven automatically"
	suppress(q, "AwsSolutions-SQS3", reason)
	suppress(q, "Serverless-SQSRedrivePolicy", reason)
	return q
}

// addTopicConsumer maps spec's topic onto fn with the settings of
// Config.Mapping: no retry or record-age limit and no on-failure
// destination, so a batch that fails is retried until it succeeds and no
// record is skipped (internal/eventsource says why). The CDK refuses -1
// for either limit, so both are set on the template itself: explicit, an
// update from a stack that had limits replaces them rather than leaving
// the deployed values in place. It returns the mapping.
func addTopicConsumer(cfg Config, fn awslambda.Function, spec functionSpec) awslambda.CfnEventSourceMapping {
	ms := cfg.Mapping
	if ms.BatchSize == 0 {
		panic("infra: the event source mapping settings were not loaded (loadMappingSettings)")
	}
	fn.AddEventSource(awslambdaeventsources.NewManagedKafkaEventSource(&awslambdaeventsources.ManagedKafkaEventSourceProps{
		ClusterArn: jsii.String(cfg.MSKClusterArn),
		Topic:      jsii.String(spec.consumes),
		// Seed 003: a new consumer starts at the end of the topic; what was
		// published before it existed is the retry-sweeper's to republish.
		StartingPosition:   awslambda.StartingPosition_LATEST,
		ConsumerGroupId:    jsii.String(consumerGroupID(spec.name)),
		BatchSize:          jsii.Number(ms.BatchSize),
		MaxBatchingWindow:  awscdk.Duration_Seconds(jsii.Number(ms.MaximumBatchingWindowInSeconds)),
		BisectBatchOnError: jsii.Bool(ms.BisectBatchOnFunctionError),
		ProvisionedPollerConfig: &awslambdaeventsources.ProvisionedPollerConfig{
			MinimumPollers: jsii.Number(esmMinPollers),
			MaximumPollers: jsii.Number(float64(cfg.maxPollers(spec.consumes))),
		},
	}))
	var mapping awslambda.CfnEventSourceMapping
	for _, child := range *fn.Node().Children() {
		if m, ok := child.(awslambda.EventSourceMapping); ok {
			mapping = m.Node().DefaultChild().(awslambda.CfnEventSourceMapping)
		}
	}
	if mapping == nil {
		panic("infra: " + spec.name + ": the Kafka event source created no mapping")
	}
	mapping.AddPropertyOverride(jsii.String("MaximumRetryAttempts"), ms.MaximumRetryAttempts)
	mapping.AddPropertyOverride(jsii.String("MaximumRecordAgeInSeconds"), ms.MaximumRecordAgeInSeconds)
	suppress(mapping, "Serverless-LambdaEventSourceMappingDestination", dlqMapping)
	return mapping
}
