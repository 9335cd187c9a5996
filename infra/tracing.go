package main

import (
	"strconv"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// Tracing on AWS (context tracing=true): the seven functions record
// OpenTelemetry spans (internal/tracing) and, at the end of each
// invocation, flush them over OTLP/HTTP to localhost:4318, where the AWS
// Distro for OpenTelemetry (ADOT) collector layer listens; the collector's
// default configuration (otlp receiver → awsxray exporter) sends them to
// X-Ray with PutTraceSegments.
//
// Why the layer and not X-Ray's own OTLP endpoint: the flush stays on the
// loopback, so an invocation never waits on a signed call across the
// network, and the OTLP endpoint needs the account-wide Transaction Search
// set up first, which a stack should not switch on behind its owner's
// back. The collector forwards W3C trace ids unchanged in X-Ray's notation
// (4bf92f35… → 1-4bf92f35-…): its awsxray exporter no longer drops ids
// whose first 32 bits are not a recent time.
//
// Lambda's own X-Ray tracing stays PassThrough: Active would record a
// second trace per invocation, under an id Lambda picks (HTTP APIs, MSK
// mappings and Scheduler send no X-Amzn-Trace-Id) and sampled by its own
// rule, joined to nothing of ours.
//
// With tracing off nothing here is in the template: no layer, no variable,
// no X-Ray grant, no TracingConfig.

// defaultTraceSampleRatio is traceSampleRatio's default: 5% of new traces.
// The console's trace view (GET /api/traces/{id}) is built from the store
// and shows every trace whatever the ratio, so X-Ray is for timings and
// the service map, for which a sample is enough; 5% of a million webhooks
// a month stays within X-Ray's free 100,000 recorded traces. The ratio
// decides on the trace id, so every function agrees on a trace it resumes.
const defaultTraceSampleRatio = 0.05

// otlpEndpoint is the ADOT collector's OTLP/HTTP receiver in the function's
// sandbox (the layer's default configuration).
const otlpEndpoint = "http://localhost:4318"

// defaultAdotLayer is the pinned ADOT collector layer release, from the
// CDK's table of them: aws-otel-collector-arm64-ver-0-115-0, version 2,
// which AWS (account 901920570463) publishes under the same name and
// version in each region of the table, so the environment-agnostic
// template names it with the deploy's region
// (arn:aws:lambda:${AWS::Region}:901920570463:layer:…:2). A region
// without it needs adotLayerArn.
func defaultAdotLayer() awslambda.AdotLambdaLayerGenericVersion {
	return awslambda.AdotLambdaLayerGenericVersion_V0_115_0()
}

// adotLayerName is defaultAdotLayer's layer name, pinned by the tests.
const adotLayerName = "aws-otel-collector-arm64-ver-0-115-0"

// tracingSetup is what tracing adds to each of the seven functions.
type tracingSetup struct {
	// layer is the collector; nil when tracing is off.
	layer awslambda.ILayerVersion
	env   map[string]*string
}

// on reports whether tracing is on.
func (t tracingSetup) on() bool { return t.layer != nil }

// newTracing imports the collector layer and prepares the variables, or
// returns the zero tracingSetup when cfg.Tracing is off.
func newTracing(stack awscdk.Stack, cfg Config) tracingSetup {
	if !cfg.Tracing {
		return tracingSetup{}
	}
	arn := cfg.AdotLayerArn
	var layerArn *string
	if arn != "" {
		layerArn = jsii.String(arn)
	} else {
		layerArn = defaultAdotLayer().LayerArn(stack, awslambda.Architecture_ARM_64())
	}
	return tracingSetup{
		layer: awslambda.LayerVersion_FromLayerVersionArn(stack, jsii.String("AdotCollectorLayer"), layerArn),
		env: map[string]*string{
			envTracing:          jsii.String("true"),
			envOTLPEndpoint:     jsii.String(otlpEndpoint),
			envTraceSampleRatio: jsii.String(strconv.FormatFloat(cfg.TraceSampleRatio, 'g', -1, 64)),
		},
	}
}

// apply gives one of the seven functions the variables, Lambda's
// PassThrough mode and the collector layer (after layers). The CDK grants
// a function with a tracing mode xray:PutTraceSegments and
// xray:PutTelemetryRecords, which the collector calls with the function's
// role (X-Ray scopes neither to a resource).
func (t tracingSetup) apply(spec *functionSpec, env map[string]*string, layers []awslambda.ILayerVersion) []awslambda.ILayerVersion {
	if !t.on() {
		return layers
	}
	for k, v := range t.env {
		env[k] = v
	}
	spec.tracing = awslambda.Tracing_PASS_THROUGH
	return append(layers, t.layer)
}

// tracingMode is how a function is traced, for cdk-nag's reasons.
type tracingMode int

const (
	// tracingOff: one of the seven, with context tracing off.
	tracingOff tracingMode = iota
	// tracingOn: one of the seven, with the collector layer.
	tracingOn
	// untraced: the topics function, which records no spans either way.
	untraced
)

// mode is the tracingMode of the seven functions.
func (t tracingSetup) mode() tracingMode {
	if t.on() {
		return tracingOn
	}
	return tracingOff
}

// reason says why cdk-nag's Serverless-LambdaTracing, which wants Lambda's
// Active mode, does not apply.
func (m tracingMode) reason() string {
	switch m {
	case tracingOn:
		return lambdaTracingOn
	case untraced:
		return lambdaTracingTopics
	}
	return lambdaTracingOff
}

// The reasons of tracingMode.reason.
const (
	lambdaTracingOff = "tracing is off (context tracing=false): no spans are recorded; a request is followed by its " +
		"W3C trace id in the JSON logs (trace_id), on its events (metadata.traceId) and in the console's trace view " +
		"from the store; -c tracing=true sends spans to X-Ray through the ADOT collector layer"
	lambdaTracingOn = "the functions' OpenTelemetry spans reach X-Ray through the ADOT collector layer (tracing=true); " +
		"Lambda's own tracing stays PassThrough because Active would record a second, unrelated X-Ray trace per " +
		"invocation, sampled by Lambda's rule instead of traceSampleRatio"
	lambdaTracingTopics = "the topics custom resource runs only during deploys and records no spans"
)
