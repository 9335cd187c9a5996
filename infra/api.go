package main

import (
	"encoding/json"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2authorizers"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/jsii-runtime-go"
)

// Routes of the HTTP API.
const (
	// routeWebhooks is public: providers cannot present our JWTs, and the
	// webhook function verifies every delivery's signature itself.
	routeWebhooks = "/webhooks/{provider}"
	// routeAPI is everything under /api, behind the JWT authorizer.
	routeAPI = "/api/{proxy+}"
	// routeConsole and routeConsoleFiles are the operations console: the
	// api function's static page and its script and stylesheet, public
	// like /api/openapi.json (a browser's navigation carries no bearer
	// token); everything it shows comes from /api with the JWT the person
	// pastes into it.
	routeConsole      = "/console"
	routeConsoleFiles = "/console/{proxy+}"
)

// accessLogFormat is one JSON line per request: what a provider's failed
// delivery or a client's 4xx needs to be traced to the function's log
// (requestId is in both).
var accessLogFormat = func() string {
	b, err := json.Marshal(map[string]string{
		"requestId":          "$context.requestId",
		"routeKey":           "$context.routeKey",
		"path":               "$context.path",
		"status":             "$context.status",
		"responseLength":     "$context.responseLength",
		"requestTime":        "$context.requestTime",
		"responseLatency":    "$context.responseLatency",
		"integrationStatus":  "$context.integrationStatus",
		"integrationLatency": "$context.integrationLatency",
		"integrationError":   "$context.integrationErrorMessage",
		"authorizerError":    "$context.authorizer.error",
		"sourceIp":           "$context.identity.sourceIp",
		"userAgent":          "$context.identity.userAgent",
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// newHTTPAPI creates the HTTP API with its routes (webhooks, /api, the
// console), the throttled
// default stage and its access log.
func newHTTPAPI(stack awscdk.Stack, cfg Config, webhook, api awslambda.IFunction) awsapigatewayv2.HttpApi {
	httpAPI := awsapigatewayv2.NewHttpApi(stack, jsii.String("HttpApi"), &awsapigatewayv2.HttpApiProps{
		Description: jsii.String("StreamOps: provider webhooks and the workflow/task API"),
		// The stage is created below, with throttling and access logs.
		CreateDefaultStage: jsii.Bool(false),
	})
	for _, route := range *httpAPI.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
		Path:        jsii.String(routeWebhooks),
		Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod_POST},
		Integration: awsapigatewayv2integrations.NewHttpLambdaIntegration(jsii.String("WebhookIntegration"), webhook, nil),
	}) {
		suppressWebhookRouteAuthorizer(stack, route)
	}
	audience := make([]*string, 0, len(cfg.JWTAudience))
	for _, a := range cfg.JWTAudience {
		audience = append(audience, jsii.String(a))
	}
	apiIntegration := awsapigatewayv2integrations.NewHttpLambdaIntegration(jsii.String("ApiIntegration"), api, nil)
	httpAPI.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
		Path:        jsii.String(routeAPI),
		Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod_ANY},
		Integration: apiIntegration,
		Authorizer: awsapigatewayv2authorizers.NewHttpJwtAuthorizer(jsii.String("JwtAuthorizer"), jsii.String(cfg.JWTIssuer),
			&awsapigatewayv2authorizers.HttpJwtAuthorizerProps{JwtAudience: &audience}),
	})
	for _, path := range []string{routeConsole, routeConsoleFiles} {
		for _, route := range *httpAPI.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
			Path:        jsii.String(path),
			Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod_GET},
			Integration: apiIntegration,
		}) {
			suppressConsoleRouteAuthorizer(stack, route)
		}
	}

	accessLogs := awslogs.NewLogGroup(stack, jsii.String("HttpApiAccessLogs"), &awslogs.LogGroupProps{
		Retention:     retentionDays[cfg.LogRetentionDays],
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	stage := httpAPI.AddStage(jsii.String("DefaultStage"), &awsapigatewayv2.HttpStageOptions{
		StageName:  jsii.String("$default"),
		AutoDeploy: jsii.Bool(true),
		Throttle: &awsapigatewayv2.ThrottleSettings{
			RateLimit:  jsii.Number(float64(cfg.APIThrottleRate)),
			BurstLimit: jsii.Number(float64(cfg.APIThrottleBurst)),
		},
		DetailedMetricsEnabled: jsii.Bool(true),
	})
	// The L2 stage takes access logs only as a jsii interface implemented
	// in TypeScript; the L1 property says the same thing directly.
	cfnStage := stage.Node().DefaultChild().(awsapigatewayv2.CfnStage)
	cfnStage.SetAccessLogSettings(&awsapigatewayv2.CfnStage_AccessLogSettingsProperty{
		DestinationArn: accessLogs.LogGroupArn(),
		Format:         jsii.String(accessLogFormat),
	})
	awscdk.NewCfnOutput(stack, jsii.String("ApiEndpoint"), &awscdk.CfnOutputProps{
		Description: jsii.String("Base URL: POST <url>/webhooks/{provider}, <url>/api/…, the console at <url>/console"),
		Value:       httpAPI.ApiEndpoint(),
	})
	return httpAPI
}
