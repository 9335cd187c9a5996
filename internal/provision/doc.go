// Package provision holds the CloudFormation custom resources of the
// StreamOps stack: what a deploy must create that CloudFormation cannot
// declare itself. Today that is the Kafka topics on MSK (Topics), created
// from internal/bus's topic table with the same client and IAM auth the
// functions use.
//
// What must not live here: the topic table itself (internal/bus), the
// response protocol to CloudFormation (aws-lambda-go's cfn package wraps
// the handlers), and anything a function does at run time.
package provision
