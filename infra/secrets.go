package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/jsii-runtime-go"
)

// Secrets. Each function reads only the prefixes its spec names
// (functionSpec.secretPrefixes):
//
//   - streamops/webhook/<provider>: the provider's signing secrets, read by
//     webhook at run time (internal/provider caches them 5 minutes, so a
//     rotation needs no deploy).
//   - streamops/partner/<partner>: credentials for delivering to a
//     partner, read by outbox-relay (and by api, whose POST
//     /api/partners/{partnerId}/test signs as the relay does).
//   - streamops/admin/…: operators' own; no function may read it.
//   - the MongoDB URI (Config.MongoURISecretName): every function reads it
//     once at cold start (MONGODB_URI_SECRET, internal/app), so the URI is
//     never in a function's configuration.
//
// The stack creates the webhook and partner secrets with random
// placeholder values, so signatures fail closed until an operator puts the
// real value (docs/deploy.md, Secrets). They are retained when the stack is deleted.

// newPlaceholderSecrets creates prefix+name for every name.
func newPlaceholderSecrets(stack awscdk.Stack, idPrefix, prefix, purpose string, names []string) {
	for _, name := range names {
		secret := awssecretsmanager.NewSecret(stack, jsii.String(idPrefix+constructID(name)), &awssecretsmanager.SecretProps{
			SecretName:  jsii.String(prefix + name),
			Description: jsii.String("StreamOps " + purpose + " of " + name + " (placeholder until set by an operator)"),
			GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
				// Secret lists are comma-separated: keep the placeholder to
				// one plain entry.
				ExcludePunctuation: jsii.Bool(true),
				PasswordLength:     jsii.Number(48),
			},
			RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
		})
		suppress(secret, "AwsSolutions-SMG4",
			"the value is issued by the provider or partner (a webhook signing secret, delivery credentials): "+
				"it is rotated when they rotate it, by put-secret-value with old and new listed while both are live, "+
				"not by a rotation Lambda that could not change it on their side")
	}
}

// secretPrefixStatement lets a role read every secret under prefix, present
// or future, and nothing else.
func secretPrefixStatement(stack awscdk.Stack, prefix string) awsiam.PolicyStatement {
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions: jsii.Strings("secretsmanager:GetSecretValue"),
		Resources: &[]*string{stack.FormatArn(&awscdk.ArnComponents{
			Service:      jsii.String("secretsmanager"),
			Resource:     jsii.String("secret"),
			ResourceName: jsii.String(prefix + "*"),
			ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
		})},
	})
}

// mongoURISecretStatement lets a function read the MongoDB URI secret (its
// ARN ends in a random six-character suffix) and no other.
func mongoURISecretStatement(stack awscdk.Stack, cfg Config) awsiam.PolicyStatement {
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:     jsii.String("ReadMongoURISecret"),
		Actions: jsii.Strings("secretsmanager:GetSecretValue"),
		Resources: &[]*string{stack.FormatArn(&awscdk.ArnComponents{
			Service:      jsii.String("secretsmanager"),
			Resource:     jsii.String("secret"),
			ResourceName: jsii.String(cfg.MongoURISecretName + "-??????"),
			ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
		})},
	})
}
