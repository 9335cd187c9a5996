package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsec2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdadestinations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// kafkaAccess is what a function does with the MSK cluster; it decides the
// kafka-cluster actions its role gets (kafka.go).
type kafkaAccess int

const (
	// kafkaConnect: the function opens a producer at cold start
	// (internal/app requires brokers) but never writes a record.
	kafkaConnect kafkaAccess = iota
	// kafkaProduce: the function writes events and dead letters.
	kafkaProduce
	// kafkaConsume: an event source mapping reads a topic for the function
	// with its role, and the function produces what it emits.
	kafkaConsume
)

// functionSpec is one Lambda's role-specific settings. Memory also buys CPU
// (a full vCPU at 1769 MB), which is what the batch functions pay for.
type functionSpec struct {
	name        string
	description string
	memoryMB    float64
	timeout     awscdk.Duration
	// reservedConcurrency caps concurrent instances; 0 leaves it unreserved.
	reservedConcurrency float64
	kafka               kafkaAccess
	// consumes is the topic an event source mapping feeds the function.
	consumes string
	// operations: the function also produces to the operations topic
	// (it emits operational events, or republishes them: the sweeper).
	operations bool
	// secretPrefixes are the Secrets Manager prefixes the function may read.
	secretPrefixes []string
	// tokenises: the function replaces personal data with references, and
	// so may wrap a new subject's key (kms:Encrypt) and read the index
	// secret (pii.go).
	tokenises bool
	// resolves: the function opens references where a step needs the
	// value, and so may unwrap a subject's key (kms:Decrypt).
	resolves bool
	// opensPartnerSecrets: the function opens the signing secrets of the
	// partners kept in the store (sealed with the same key), and so may
	// kms:Decrypt with a partner secret's subject alone.
	opensPartnerSecrets bool
	// asyncRetries and asyncMaxAge configure Lambda's retries of the
	// asynchronous invocations EventBridge Scheduler makes; zero for the
	// synchronous (API Gateway) and event-source-mapped functions.
	asyncRetries float64
	asyncMaxAge  awscdk.Duration
	// asyncOnFailure gives the asynchronous invocations an SQS on-failure
	// destination (with an alarm), for a run whose failure no later run
	// makes good.
	asyncOnFailure bool
	// onFailure is that queue, created by the stack.
	onFailure awssqs.IQueue
	// tracing is Lambda's X-Ray mode, set only when context tracing is on
	// (tracing.go); empty leaves the function without a TracingConfig.
	tracing awslambda.Tracing
}

// functionSpecs are the seven functions in functionNames' order.
func functionSpecs() []functionSpec {
	return []functionSpec{{
		name:        fnWebhook,
		description: "verify, dedupe, scrub, store, route and publish provider webhooks",
		// One signature check, one insert, one publish: latency-bound, so
		// 512 MB buys a faster cold start and HMAC over large bodies. 10 s:
		// providers give up at about that (GitHub at 10 s) and redeliver;
		// the dedupe on (provider, provider_event_id) absorbs the retry.
		memoryMB: 512, timeout: awscdk.Duration_Seconds(jsii.Number(10)),
		kafka:          kafkaProduce,
		secretPrefixes: []string{secretPrefixWebhook},
		tokenises:      true,
	}, {
		name:        fnAPI,
		description: "workflow and task submissions, state, event browsing, export and replay",
		// 29 s: API Gateway ends an HTTP API integration at 30 s, so the
		// function times out (and logs why) just before the client is cut.
		memoryMB: 512, timeout: awscdk.Duration_Seconds(jsii.Number(29)),
		kafka: kafkaProduce,
		// partner.paused and partner.resumed.
		operations: true,
		// Submissions are tokenised; erasure and lookup find a subject by
		// email or phone (the index), and nothing it answers is resolved.
		tokenises: true,
		// POST /api/partners/{partnerId}/test signs its example with the
		// partner's secrets, as outbox-relay signs a delivery: the file's
		// in Secrets Manager, a stored partner's sealed with the key.
		secretPrefixes:      []string{secretPrefixPartner},
		opensPartnerSecrets: true,
	}, {
		name:        fnWorkflowProcessor,
		description: "run workflow steps from the workflows topic",
		// A batch is up to 100 records, each a few store writes and a
		// publish. A timeout fails the whole batch and the mapping retries
		// it, so 2 min is far above a healthy batch yet retries a stuck
		// one soon. 1024 MB: JSON decoding and schema checks are CPU.
		memoryMB: 1024, timeout: awscdk.Duration_Minutes(jsii.Number(2)),
		kafka: kafkaConsume, consumes: topicWorkflows,
		tokenises: true,
	}, {
		name:        fnTaskProcessor,
		description: "execute tasks from the tasks topic, retry with backoff, dead-letter",
		// Tasks call out to other systems with their own timeouts; 5 min
		// leaves room for a batch of slow ones without holding a
		// partition much longer than its retry would.
		memoryMB: 1024, timeout: awscdk.Duration_Minutes(jsii.Number(5)),
		kafka: kafkaConsume, consumes: topicTasks,
		// It tokenises what its executors produce, and resolves the
		// recipient of an email_notification at the moment of sending.
		tokenises: true, resolves: true,
	}, {
		name:        fnOutboxRelay,
		description: "claim due outbox entries and deliver them (Kafka or partner HTTP)",
		// A run serves for one schedule period, delivering each entry when
		// it falls due (seed 000's 5, 10, 20, 40 s), and stops claiming
		// just before the next run; the timeout adds room to settle the
		// batch in flight (relayTimeout). Reserved concurrency 1 makes
		// overlap impossible: a tick that comes while a slow delivery
		// holds the run is throttled, and Lambda retries it within
		// seconds (asyncMaxAge), so the next run starts when this one ends.
		memoryMB: 512, timeout: relayTimeout(),
		reservedConcurrency: 1,
		kafka:               kafkaProduce,
		operations:          true, // breaker, throttle and dead-letter events
		secretPrefixes:      []string{secretPrefixPartner},
		// Partners configured for clear values get them resolved.
		resolves: true,
		// A failed run is not retried: the next tick does the same work.
		asyncRetries: 0, asyncMaxAge: awscdk.Duration_Seconds(jsii.Number(60)),
	}, {
		name:        fnRetrySweeper,
		description: "republish unpublished events, due task retries, stale leases, partner retries",
		memoryMB:    512, timeout: awscdk.Duration_Seconds(jsii.Number(50)),
		kafka: kafkaProduce,
		// It republishes the operational events a run failed to publish.
		operations:   true,
		asyncRetries: 0, asyncMaxAge: awscdk.Duration_Seconds(jsii.Number(60)),
	}, {
		name:        fnArchiver,
		description: "copy events near their TTL to events_archive",
		// The daily bulk copy: the longest timeout Lambda allows, and CPU
		// for encoding large batches. It is idempotent, so a failed run is
		// retried twice within the hour; a run that still fails lands in
		// its on-failure queue (and alarms) instead of vanishing, since
		// the next run is a day later and events near their TTL may expire
		// before it.
		memoryMB: 1024, timeout: awscdk.Duration_Minutes(jsii.Number(15)),
		kafka:        kafkaConnect,
		asyncRetries: 2, asyncMaxAge: awscdk.Duration_Hours(jsii.Number(1)),
		asyncOnFailure: true,
	}}
}

// network is where the functions run: next to the MSK cluster.
type network struct {
	vpc           awsec2.IVpc
	subnets       *awsec2.SubnetSelection
	securityGroup awsec2.ISecurityGroup
}

// newNetwork imports the VPC, subnets and security group from the config.
// Nothing is looked up in the account, so synth stays offline.
func newNetwork(stack awscdk.Stack, cfg Config) network {
	vpc := awsec2.Vpc_FromVpcAttributes(stack, jsii.String("Vpc"), &awsec2.VpcAttributes{
		VpcId:             jsii.String(cfg.VpcID),
		AvailabilityZones: stack.AvailabilityZones(),
	})
	var subnets []awsec2.ISubnet
	for i, id := range cfg.SubnetIDs {
		subnet := awsec2.Subnet_FromSubnetId(stack, jsii.String(fmt.Sprintf("Subnet%d", i)), jsii.String(id))
		// The stack never reads the subnets' route tables (it adds no
		// routes or endpoints), so their ids are not asked for.
		awscdk.Annotations_Of(subnet).AcknowledgeWarning(jsii.String("@aws-cdk/aws-ec2:noSubnetRouteTableId"),
			jsii.String("no route table is read"))
		subnets = append(subnets, subnet)
	}
	// Immutable: the group belongs to whoever set up the cluster's access;
	// the stack must not add rules to it.
	sg := awsec2.SecurityGroup_FromSecurityGroupId(stack, jsii.String("FunctionSecurityGroup"),
		jsii.String(cfg.SecurityGroupID), &awsec2.SecurityGroupImportOptions{Mutable: jsii.Bool(false)})
	return network{vpc: vpc, subnets: &awsec2.SubnetSelection{Subnets: &subnets}, securityGroup: sg}
}

// assetPath is the deployable zip of function name.
func assetPath(cfg Config, name string) string {
	return filepath.Join(cfg.AssetDir, name+".zip")
}

// checkAssets fails with one message naming every missing zip, instead of
// the CDK's error about the first.
func checkAssets(cfg Config) error {
	var missing []string
	for _, name := range assetNames {
		if _, err := os.Stat(assetPath(cfg, name)); err != nil {
			missing = append(missing, assetPath(cfg, name))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("function zips missing (run `make build` at the repository root): %s", strings.Join(missing, ", "))
	}
	return nil
}

// newFunction creates spec's function with its log group, in the network,
// with env as its environment.
func newFunction(stack awscdk.Stack, cfg Config, net network, spec functionSpec, env map[string]*string, layers ...awslambda.ILayerVersion) awslambda.Function {
	id := constructID(spec.name)
	logs := awslogs.NewLogGroup(stack, jsii.String(id+"Logs"), &awslogs.LogGroupProps{
		Retention: retentionDays[cfg.LogRetentionDays],
		// Logs outlive the stack: they are the record of what it did.
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	props := &awslambda.FunctionProps{
		Description:  jsii.String("StreamOps " + spec.name + ": " + spec.description),
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("bootstrap"),
		Code:         awslambda.Code_FromAsset(jsii.String(assetPath(cfg, spec.name)), nil),
		MemorySize:   jsii.Number(spec.memoryMB),
		Timeout:      spec.timeout,
		Environment:  &env,
		LogGroup:     logs,
		Vpc:          net.vpc,
		VpcSubnets:   net.subnets,
		SecurityGroups: &[]awsec2.ISecurityGroup{
			net.securityGroup,
		},
	}
	if len(layers) > 0 {
		props.Layers = &layers
	}
	if spec.tracing != "" {
		props.Tracing = spec.tracing
	}
	if spec.reservedConcurrency > 0 {
		props.ReservedConcurrentExecutions = jsii.Number(spec.reservedConcurrency)
	}
	if spec.asyncMaxAge != nil {
		props.RetryAttempts = jsii.Number(spec.asyncRetries)
		props.MaxEventAge = spec.asyncMaxAge
	}
	if spec.onFailure != nil {
		props.OnFailure = awslambdadestinations.NewSqsDestination(spec.onFailure)
	}
	return awslambda.NewFunction(stack, jsii.String(id), props)
}

// functionEnvironment is the environment every function gets, plus each
// function's own settings and the paths of the layer's files it reads.
// STREAMOPS_EXPORT_BUCKET is added with the bucket (backends.go).
func functionEnvironment(cfg Config, spec functionSpec, layer configLayer) map[string]*string {
	env := map[string]*string{
		// The secret's name, not its value: the functions read the URI at
		// cold start (internal/app), so it never appears in the function's
		// configuration.
		envMongoURISecret: jsii.String(cfg.MongoURISecretName),
		envMongoDatabase:  jsii.String(cfg.MongoDatabase),
		envKafkaBrokers:   jsii.String(cfg.KafkaBrokers),
		envKafkaAuth:      jsii.String(kafkaAuthIAM),
		envLogLevel:       jsii.String(cfg.LogLevel),
		envEventLogSample: jsii.String(strconv.FormatFloat(cfg.EventLogSample, 'g', -1, 64)),
	}
	// Retention: the webhook and api store webhook rows, the archiver
	// archives and lets go, every function that opens the store applies
	// the TTL indexes; every function gets every period, so each reads
	// the store's configuration whole.
	for _, r := range cfg.retentions() {
		env[r.env] = jsii.String(*r.value)
	}
	if cfg.MongoURIVersionID != "" {
		env[envMongoURISecretVersion] = jsii.String(cfg.MongoURIVersionID)
	}
	for k, v := range layer.env[spec.name] {
		env[k] = v
	}
	switch spec.name {
	case fnWebhook:
		env[envWebhookSecrets] = jsii.String(secretPrefixWebhook)
	case fnAPI:
		env[envPartnerSecrets] = jsii.String(secretPrefixPartner)
	case fnOutboxRelay:
		env[envPartnerSecrets] = jsii.String(secretPrefixPartner)
		env[envSchedulePeriod] = jsii.String(schedulePeriod.String())
	case fnTaskProcessor:
		env[envEmailSender] = jsii.String(cfg.EmailSender)
		if cfg.SESConfigurationSet != "" {
			env[envSESConfigurationSet] = jsii.String(cfg.SESConfigurationSet)
		}
	}
	return env
}

// constructID turns a function name into a construct id:
// "workflow-processor" → "WorkflowProcessor".
func constructID(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "-") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
