package main

import (
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// stackName is the CloudFormation stack (and the prefix of alarm names and
// the dashboard's name).
const stackName = "StreamOps"

// newStreamOpsStack builds the whole deployment: the seven functions, the
// HTTP API in front of two of them, the MSK mappings of two more, the
// schedules of the other three, the Kafka topics, the configuration layer,
// secrets, the personal-data key, alarms and the dashboard.
func newStreamOpsStack(scope constructs.Construct, cfg Config, props *awscdk.StackProps) (awscdk.Stack, error) {
	stack := awscdk.NewStack(scope, jsii.String(stackName), props)
	// S3 access logs are delivered under a bucket policy for the logging
	// service, not the legacy LogDeliveryWrite ACL, which buckets with
	// ACLs disabled (ObjectOwnership BUCKET_OWNER_ENFORCED) refuse.
	stack.Node().SetContext(jsii.String("@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy"), true)
	net := newNetwork(stack, cfg)

	newPlaceholderSecrets(stack, "WebhookSecret", secretPrefixWebhook, "webhook signing secrets", cfg.WebhookProviders)
	newPlaceholderSecrets(stack, "PartnerSecret", secretPrefixPartner, "delivery credentials", cfg.Partners)
	pii := newPIIKeys(stack)

	layer, err := newConfigLayer(stack, cfg)
	if err != nil {
		return nil, err
	}
	topics, topicsFn := newKafkaTopics(stack, cfg, net)
	suppressFunctionFindings(topicsFn, dlqSynchronous, untraced)
	tracing := newTracing(stack, cfg)

	specs := functionSpecs()
	functions := map[string]awslambda.Function{}
	failureQueues := map[string]awssqs.Queue{}
	var alarmSpecs []alarmSpec
	var consumers []string
	for _, spec := range specs {
		if spec.asyncOnFailure {
			id := constructID(spec.name) + "AsyncOnFailure"
			failureQueues[id] = newFailureQueue(stack, id)
			spec.onFailure = failureQueues[id]
			alarmSpecs = append(alarmSpecs, queueAlarm(id, spec.name+" run failed after its retries", failureQueues[id]))
		}
		var layers []awslambda.ILayerVersion
		if layer.uses(spec.name) {
			layers = append(layers, layer.layer)
		}
		env := functionEnvironment(cfg, spec, layer)
		layers = tracing.apply(&spec, env, layers)
		fn := newFunction(stack, cfg, net, spec, env, layers...)
		functions[spec.name] = fn
		fn.AddToRolePolicy(eniStatement())
		fn.AddToRolePolicy(mongoURISecretStatement(stack, cfg))
		pii.use(fn, spec)
		suppressFunctionFindings(fn, dlqReason(spec), tracing.mode())
		for _, s := range kafkaStatements(cfg, spec) {
			fn.AddToRolePolicy(s)
		}
		for _, prefix := range spec.secretPrefixes {
			fn.AddToRolePolicy(secretPrefixStatement(stack, prefix))
			suppress(fn, "AwsSolutions-IAM5",
				"a provider or partner added later needs only its secret under "+prefix+", not a deploy; "+
					"the prefix holds nothing else", secretPrefixGrant(prefix))
		}
		if spec.asyncMaxAge != nil && !spec.asyncOnFailure {
			suppress(fn, "Serverless-LambdaAsyncFailureDestination",
				"a failed run is redone by the next one-minute tick, which does the same work; "+
					"its failure is the Errors alarm's")
		}
		alarmSpecs = append(alarmSpecs, functionAlarms(spec.name, fn)...)
		if spec.kafka == kafkaConsume {
			addTopicConsumer(cfg, fn, spec)
			dependOnTopics(fn, topics)
			consumers = append(consumers, spec.name)
			alarmSpecs = append(alarmSpecs, consumerLagAlarm(cfg, spec, fn))
		}
	}

	pii.denyDecryptToAllButResolvers()

	exports := newExportsBucket(stack, cfg)
	useExportsBucket(exports, functions[fnTaskProcessor], false)
	useExportsBucket(exports, functions[fnAPI], true)
	functions[fnTaskProcessor].AddToRolePolicy(sendEmailStatement(stack, cfg))

	api := newHTTPAPI(stack, cfg, functions[fnWebhook], functions[fnAPI])

	for _, s := range scheduleSpecs() {
		id := constructID(s.function) + "ScheduleDLQ"
		failureQueues[id] = newSchedule(stack, functions[s.function], s)
		alarmSpecs = append(alarmSpecs, queueAlarm(id, s.function+" schedule could not invoke the function", failureQueues[id]))
	}
	alarmSpecs = append(alarmSpecs, outboxAgeAlarm(cfg))
	alarmSpecs = append(append(alarmSpecs, mskAlarms(cfg)...), deadLetterAlarms()...)

	newDashboard(stack, dashboardInputs{
		api:       api,
		functions: functions,
		consumers: consumers,
		queues:    failureQueues,
		alarms:    alarms(stack, cfg, alarmSpecs),
		cluster:   mskClusterName(cfg.MSKClusterArn),
	})
	// EventBridge Scheduler's role (one per target function, made by the
	// CDK) may invoke the function and its versions (<arn>:*), nothing else.
	for _, child := range *stack.Node().Children() {
		if strings.HasPrefix(*child.Node().Id(), "SchedulerRoleForTarget-") {
			suppress(child, "AwsSolutions-IAM5",
				"the CDK's Scheduler target role: lambda:InvokeFunction on the one scheduled function and its versions",
				`/^Resource::<(OutboxRelay|RetrySweeper|Archiver)[0-9A-F]{8}\.Arn>:\*$/`)
		}
	}
	return stack, nil
}

// dlqReason says why spec's function has no dead-letter queue of its own.
func dlqReason(spec functionSpec) string {
	switch {
	case spec.kafka == kafkaConsume:
		return dlqMapping
	case spec.asyncMaxAge != nil:
		return dlqScheduled
	}
	return dlqSynchronous
}
