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

// newExportsBucket creates the private bucket of exports and reports.
// Objects expire after ExportRetentionDays; the bucket itself is retained
// with the stack's deletion, like the logs.
func newExportsBucket(stack awscdk.Stack, cfg Config) awss3.Bucket {
	return awss3.NewBucket(stack, jsii.String("Exports"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Expiration:                          awscdk.Duration_Days(jsii.Number(float64(cfg.ExportRetentionDays))),
			AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(1)),
		}},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
}

// useExportsBucket points fn at the bucket. writer only puts objects
// (task-processor's executors); a reader also gets them back (the API
// serves its exports).
func useExportsBucket(bucket awss3.Bucket, fn awslambda.Function, read bool) {
	fn.AddEnvironment(jsii.String(envExportBucket), bucket.BucketName(), nil)
	bucket.GrantPut(fn, nil)
	if read {
		bucket.GrantRead(fn, nil)
	}
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
