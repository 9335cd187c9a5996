// Package awsenv is the AWS configuration of a function: the region and
// credentials Lambda puts in the environment, and the one Secrets Manager
// call every function may make (GetSecretValue), signed with the SDK's
// SigV4 signer over net/http.
//
// It exists for the size and cold start of the bootstraps: the SDK's
// config.LoadDefaultConfig links the whole credential chain (SSO, STS,
// sign-in, instance metadata, shared config files), and a Secrets Manager
// client links the SDK's middleware stack, megabytes of each bootstrap
// (docs/performance.md), for what Lambda hands over in four variables and
// one JSON request. Functions that call S3 or SES (task-processor,
// api) build those SDK clients on Config.
//
// Outside Lambda, the same variables apply (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION): `aws configure
// export-credentials --format env` prints them for a profile.
//
// What must not live here: what a secret means (webhook, app) or any
// other AWS service's protocol.
package awsenv
