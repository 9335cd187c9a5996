package main

import (
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
// secrets, alarms and the dashboard.
func newStreamOpsStack(scope constructs.Construct, cfg Config, props *awscdk.StackProps) (awscdk.Stack, error) {
	stack := awscdk.NewStack(scope, jsii.String(stackName), props)
	net := newNetwork(stack, cfg)

	newPlaceholderSecrets(stack, "WebhookSecret", secretPrefixWebhook, "webhook signing secrets", cfg.WebhookProviders)
	newPlaceholderSecrets(stack, "PartnerSecret", secretPrefixPartner, "delivery credentials", cfg.Partners)

	layer, err := newConfigLayer(stack, cfg)
	if err != nil {
		return nil, err
	}
	topics, _ := newKafkaTopics(stack, cfg, net)

	specs := functionSpecs()
	functions := map[string]awslambda.Function{}
	failureQueues := map[string]awssqs.Queue{}
	var alarmSpecs []alarmSpec
	var consumers []string
	for _, spec := range specs {
		var layers []awslambda.ILayerVersion
		if layer.uses(spec.name) {
			layers = append(layers, layer.layer)
		}
		fn := newFunction(stack, cfg, net, spec, functionEnvironment(cfg, spec, layer), layers...)
		functions[spec.name] = fn
		fn.AddToRolePolicy(eniStatement())
		fn.AddToRolePolicy(mongoURISecretStatement(stack, cfg))
		for _, s := range kafkaStatements(cfg, spec) {
			fn.AddToRolePolicy(s)
		}
		for _, prefix := range spec.secretPrefixes {
			fn.AddToRolePolicy(secretPrefixStatement(stack, prefix))
		}
		alarmSpecs = append(alarmSpecs, functionAlarms(spec.name, fn)...)
		if spec.kafka == kafkaConsume {
			id := constructID(spec.name) + "OnFailure"
			failureQueues[id] = addTopicConsumer(stack, cfg, fn, spec)
			dependOnTopics(fn, topics)
			consumers = append(consumers, spec.name)
			alarmSpecs = append(alarmSpecs,
				offsetLagAlarm(cfg, spec.name, fn),
				queueAlarm(id, spec.consumes+" records skipped after retries", failureQueues[id]))
		}
	}

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

	newDashboard(stack, dashboardInputs{
		api:       api,
		functions: functions,
		consumers: consumers,
		queues:    failureQueues,
		alarms:    alarms(stack, cfg, alarmSpecs),
	})
	return stack, nil
}
