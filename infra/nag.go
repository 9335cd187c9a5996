package main

import (
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// cdk-nag: the template tests run the AwsSolutions and Serverless packs
// (nag_test.go) and fail on any finding. What the stack does by design is
// suppressed beside the resource with suppress, each with its reason and,
// for IAM wildcards, the exact grant it applies to, so a new wildcard is a
// new finding.

// suppress records that rule does not apply to construct and its
// children, for reason; appliesTo narrows it to those findings (a string,
// or "/regex/" for a grant that names a logical id).
func suppress(construct constructs.IConstruct, rule, reason string, appliesTo ...string) {
	s := &cdknag.NagPackSuppression{Id: jsii.String(rule), Reason: jsii.String(reason)}
	if len(appliesTo) > 0 {
		var to []any
		for _, a := range appliesTo {
			if strings.HasPrefix(a, "/") {
				to = append(to, &cdknag.RegexAppliesTo{Regex: jsii.String(a + "g")})
				continue
			}
			to = append(to, a)
		}
		s.AppliesTo = &to
	}
	cdknag.NagSuppressions_AddResourceSuppressions(construct, &[]*cdknag.NagPackSuppression{s}, jsii.Bool(true))
}

// managedPolicy is how cdk-nag names an AWS-managed policy in IAM4.
func managedPolicy(name string) string {
	return "Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/" + name
}

// secretPrefixGrant is how cdk-nag names a secret-prefix grant in IAM5.
func secretPrefixGrant(prefix string) string {
	return "Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:" + prefix + "*"
}

// suppressFunctionFindings covers what every function of the stack does by
// design; the function-specific ones are next to their grants. tracing is
// how the function is traced (tracing.go).
func suppressFunctionFindings(fn constructs.IConstruct, dlqReason string, tracing tracingMode) {
	suppress(fn, "AwsSolutions-IAM4",
		"the AWS-managed Lambda execution policies Lambda documents: logs (AWSLambdaBasicExecutionRole), "+
			"the VPC network interfaces (AWSLambdaVPCAccessExecutionRole) and, for the MSK consumers, "+
			"the event source mapping's cluster calls (AWSLambdaMSKExecutionRole); AWS keeps them current",
		managedPolicy("AWSLambdaBasicExecutionRole"), managedPolicy("AWSLambdaVPCAccessExecutionRole"),
		managedPolicy("AWSLambdaMSKExecutionRole"))
	wildcards := "Lambdas in a VPC need the EC2 network-interface actions, which EC2 does not scope to resources (eniStatement)"
	if tracing == tracingOn {
		wildcards += "; the ADOT collector sends spans with xray:PutTraceSegments and xray:PutTelemetryRecords, " +
			"which X-Ray does not scope to resources either"
	}
	suppress(fn, "AwsSolutions-IAM5", wildcards, "Resource::*")
	suppress(fn, "Serverless-LambdaTracing", tracing.reason())
	suppress(fn, "Serverless-LambdaDLQ", dlqReason)
}

// Reasons a function has no dead-letter queue of its own.
const (
	dlqSynchronous = "invoked synchronously (API Gateway, or CloudFormation for the topics resource): " +
		"the caller gets the error and retries; there is no asynchronous event to keep"
	dlqMapping = "invoked by the MSK event source mapping, which gives up on no record and so has no on-failure " +
		"destination (with one, Lambda caps a Kafka mapping's retries at 10): the processor dead-letters poison to " +
		"<topic>.dlq itself, and a batch that fails on a dependency is retried until it succeeds, uncommitted, " +
		"paging through the function's Errors and its topic's consumer-lag alarms"
	dlqScheduled = "invoked by EventBridge Scheduler, whose dead-letter queue keeps the invocations it could not make; " +
		"runs that fail are the async on-failure destination's (archiver) or are redone by the next tick"
)

// suppressConsoleRouteAuthorizer: the console's routes serve the same
// static files to everyone; its data needs the JWT on /api.
func suppressConsoleRouteAuthorizer(_ awscdk.Stack, route constructs.IConstruct) {
	suppress(route, "AwsSolutions-APIG4",
		"GET only, the operations console's page, script and stylesheet, the same for everyone and holding no data "+
			"(like /api/openapi.json): a browser's navigation cannot carry a bearer token; every read and action of the "+
			"console is a call to /api, behind the JWT authorizer, with the token the person pastes")
}

// suppressWebhookRouteAuthorizer: the webhook route is public by design.
func suppressWebhookRouteAuthorizer(_ awscdk.Stack, route constructs.IConstruct) {
	suppress(route, "AwsSolutions-APIG4",
		"providers cannot send our JWTs: every webhook delivery is authenticated by its provider's signature "+
			"(Stripe, GitHub, Standard Webhooks HMAC with the secret in streamops/webhook/<provider>), "+
			"checked before anything is stored; an unsigned or mis-signed delivery gets 401")
}
