package local

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/google/uuid"
)

// The seven functions' names, as deployed.
const (
	FnWebhook           = "webhook"
	FnAPI               = "api"
	FnWorkflowProcessor = "workflow-processor"
	FnTaskProcessor     = "task-processor"
	FnOutboxRelay       = "outbox-relay"
	FnRetrySweeper      = "retry-sweeper"
	FnArchiver          = "archiver"
)

// Timeouts are the deployed functions' timeouts (docs/deploy.md, "What
// runs where"): each local invocation gets its function's as deadline, so
// the handlers' deadline checks behave as on Lambda.
var Timeouts = map[string]time.Duration{
	FnWebhook:           10 * time.Second,
	FnAPI:               29 * time.Second,
	FnWorkflowProcessor: 2 * time.Minute,
	FnTaskProcessor:     5 * time.Minute,
	FnOutboxRelay:       75 * time.Second, // outbox.RunTimeout of its one-minute schedule
	FnRetrySweeper:      50 * time.Second,
	FnArchiver:          15 * time.Minute,
}

// functionARN is the ARN an invocation of function reports.
func functionARN(function string) string {
	return "arn:aws:lambda:local:" + accountID + ":function:streamops-" + function
}

// invocationContext is the context of one invocation of function, as the
// Lambda runtime builds it: the deadline is timeout from now, the
// lambdacontext carries a request id and the function's ARN, and it is not
// cancelled with parent, because stopping the trigger (a client going
// away, the stack shutting down) does not stop an invocation under way.
func invocationContext(parent context.Context, function string, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), timeout)
	return lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{
		AwsRequestID:       uuid.NewString(),
		InvokedFunctionArn: functionARN(function),
	}), cancel
}
