package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// The Kafka topics, created by a CloudFormation custom resource backed by
// our own Go function (functions/kafka-topics, internal/provision): MSK
// has no CloudFormation resource for topics.
//
// Why aws-lambda-go's cfn package and not the CDK's custom-resources
// Provider framework: the framework adds a Node.js function (a runtime to
// keep patched, more roles and cdk-nag findings) whose value is
// asynchronous polling (isComplete) for long operations; creating five
// topics takes seconds. cfn.LambdaWrap answers CloudFormation from the
// function itself, and provision.Topics stops its work 10 s before the
// function's deadline so a failure is still reported instead of leaving
// the stack waiting an hour. The answer is an HTTPS PUT to a presigned S3
// URL, which the function reaches the way it reaches Secrets Manager
// (NAT, or an S3 gateway endpoint).

// kafkaTopicsTimeout bounds one Create or Update: a cold start, IAM auth
// and five CreateTopics calls take seconds.
var kafkaTopicsTimeout = awscdk.Duration_Minutes(jsii.Number(2))

// topicNames are the topics the resource asks for, the names of
// internal/bus's table, which the handler checks them against.
func topicNames() []string {
	return []string{topicWorkflows, topicTasks, topicWorkflows + dlqSuffix, topicTasks + dlqSuffix, topicOperations}
}

// newKafkaTopics creates the topics function and the custom resource.
// The resource is retained: CloudFormation never asks to delete the
// topics (and the handler would leave them if it did).
func newKafkaTopics(stack awscdk.Stack, cfg Config, net network) (awscdk.CustomResource, awslambda.Function) {
	spec := functionSpec{
		name:        fnKafkaTopics,
		description: "CloudFormation custom resource: create the Kafka topics (never deletes them)",
		memoryMB:    256,
		timeout:     kafkaTopicsTimeout,
	}
	fn := newFunction(stack, cfg, net, spec, map[string]*string{
		envKafkaBrokers: jsii.String(cfg.KafkaBrokers),
		envKafkaAuth:    jsii.String(kafkaAuthIAM),
		envLogLevel:     jsii.String(cfg.LogLevel),
	})
	fn.AddToRolePolicy(eniStatement())
	var topicArns []*string
	for _, t := range topicNames() {
		topicArns = append(topicArns, jsii.String(clusterResourceArn(cfg.MSKClusterArn, "topic", t)))
	}
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("KafkaConnect"),
		Actions:   jsii.Strings("kafka-cluster:Connect", "kafka-cluster:DescribeCluster"),
		Resources: jsii.Strings(cfg.MSKClusterArn),
	}))
	// AlterTopic is what Kafka's CreatePartitions asks for: an update
	// grows the topics to a larger kafkaPartitions.
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("KafkaCreateTopics"),
		Actions:   jsii.Strings("kafka-cluster:CreateTopic", "kafka-cluster:DescribeTopic", "kafka-cluster:AlterTopic"),
		Resources: &topicArns,
	}))
	var names []any
	for _, t := range topicNames() {
		names = append(names, t)
	}
	resource := awscdk.NewCustomResource(stack, jsii.String("Topics"), &awscdk.CustomResourceProps{
		ResourceType: jsii.String("Custom::KafkaTopics"),
		ServiceToken: fn.FunctionArn(),
		Properties: &map[string]any{
			"Topics": names,
			// A new cluster is an update: the topics are created there.
			"Brokers": cfg.KafkaBrokers,
			// A new count is an update: the topics grow to it
			// (internal/provision; a smaller one fails the deploy).
			"Partitions": cfg.Partitions.String(),
		},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	return resource, fn
}

// dependOnTopics makes fn's Kafka event source mappings wait for the
// topics, so a first deploy never maps a topic that does not exist yet.
func dependOnTopics(fn awslambda.Function, topics awscdk.CustomResource) {
	for _, child := range *fn.Node().Children() {
		if _, ok := child.(awslambda.EventSourceMapping); ok {
			child.Node().AddDependency(topics)
		}
	}
}
