package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/jsii-runtime-go"
)

// The AWS backends of internal/task and the exports of the API: an S3
// bucket for exports and reports, and SES for email. On Lambda both are
// required (a function's disk is ephemeral), so task-processor cannot
// start without them.

// accessLogRetentionDays is how long the exports bucket's access log is
// kept: a year of who fetched which export.
const accessLogRetentionDays = 365

// newExportsBucket creates the private bucket of exports and reports, with
// its server access log in a bucket of its own. Objects expire after
// ExportRetentionDays; both buckets are retained with the stack's
// deletion, like the logs.
func newExportsBucket(stack awscdk.Stack, cfg Config) awss3.Bucket {
	accessLogs := awss3.NewBucket(stack, jsii.String("AccessLogs"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		// S3 server access logging delivers only to SSE-S3 buckets.
		Encryption:      awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		ObjectOwnership: awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Expiration: awscdk.Duration_Days(jsii.Number(accessLogRetentionDays)),
		}},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	return awss3.NewBucket(stack, jsii.String("Exports"), &awss3.BucketProps{
		ServerAccessLogsBucket: accessLogs,
		ServerAccessLogsPrefix: jsii.String("exports/"),
		BlockPublicAccess:      awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:             awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:             jsii.Bool(true),
		ObjectOwnership:        awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Expiration:                          awscdk.Duration_Days(jsii.Number(float64(cfg.ExportRetentionDays))),
			AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(1)),
		}},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
}

// useExportsBucket points fn at the bucket and allows exactly the calls it
// makes: a writer only puts objects (task-processor's executors,
// internal/task); a reader also signs the presigned GET links the API
// answers with (internal/app/exports.go), which S3 authorizes as the
// function's s3:GetObject. No listing, bucket reads or multipart calls:
// neither makes them (CDK's GrantPut and GrantRead add List*, GetBucket*
// and Abort*).
func useExportsBucket(bucket awss3.Bucket, fn awslambda.Function, read bool) {
	fn.AddEnvironment(jsii.String(envExportBucket), bucket.BucketName(), nil)
	suppress(fn, "AwsSolutions-IAM5",
		"exports and reports are objects with per-request keys, so the grant is every object of the one bucket, "+
			"with only the object actions the function calls",
		`/^Resource::<Exports[0-9A-F]{8}\.Arn>\/\*$/`)
	actions := []string{"s3:PutObject"}
	if read {
		actions = append(actions, "s3:GetObject")
	}
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("ExportObjects"),
		Actions:   jsii.Strings(actions...),
		Resources: &[]*string{bucket.ArnForObjects(jsii.String("*"))},
	}))
}

// sendEmailStatement lets task-processor send through SES v2 as the
// configured sender: SES authorizes against the sender's identity (the
// address or its domain, whichever is verified) and, when one is named,
// the configuration set.
func sendEmailStatement(stack awscdk.Stack, cfg Config) awsiam.PolicyStatement {
	identities, _ := senderIdentities(cfg.EmailSender) // validated with the config
	var resources []*string
	arn := func(resource, name string) *string {
		return stack.FormatArn(&awscdk.ArnComponents{
			Service: jsii.String("ses"), Resource: jsii.String(resource), ResourceName: jsii.String(name),
		})
	}
	for _, id := range identities {
		resources = append(resources, arn("identity", id))
	}
	if cfg.SESConfigurationSet != "" {
		resources = append(resources, arn("configuration-set", cfg.SESConfigurationSet))
	}
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("SendEmailAsSender"),
		Actions:   jsii.Strings("ses:SendEmail"),
		Resources: &resources,
	})
}
