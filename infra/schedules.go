package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsscheduler"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsschedulertargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// scheduleSpec is one EventBridge Scheduler schedule.
type scheduleSpec struct {
	function string
	// expression is the Scheduler expression: rate(…) or cron(…), UTC.
	expression string
	// retryAttempts and maxEventAge are Scheduler's retry policy for
	// invocations it cannot deliver (throttled or failed Invoke calls);
	// the function's own errors are Lambda's asynchronous retries
	// (functionSpec.asyncRetries).
	retryAttempts float64
	maxEventAge   awscdk.Duration
}

// scheduleSpecs are the three scheduled functions.
func scheduleSpecs() []scheduleSpec {
	return []scheduleSpec{
		// Every minute. A tick that cannot be delivered within two minutes
		// is worthless: the next ticks do the same work.
		{function: fnOutboxRelay, expression: "rate(1 minute)", retryAttempts: 2, maxEventAge: awscdk.Duration_Minutes(jsii.Number(2))},
		{function: fnRetrySweeper, expression: "rate(1 minute)", retryAttempts: 2, maxEventAge: awscdk.Duration_Minutes(jsii.Number(2))},
		// Daily at 03:00 UTC, away from the top of the hour. A missed run
		// leaves events one day closer to their TTL, so keep trying for
		// six hours.
		{function: fnArchiver, expression: "cron(0 3 * * ? *)", retryAttempts: 10, maxEventAge: awscdk.Duration_Hours(jsii.Number(6))},
	}
}

// scheduledEventInput is what the scheduled functions receive: the shape of
// an EventBridge scheduled event (events.EventBridgeEvent), filled from the
// schedule's context.
func scheduledEventInput() awsscheduler.ScheduleTargetInput {
	return awsscheduler.ScheduleTargetInput_FromObject(map[string]any{
		"version":     "0",
		"id":          awsscheduler.ContextAttribute_ExecutionId(),
		"detail-type": "Scheduled Event",
		"source":      "aws.scheduler",
		"time":        awsscheduler.ContextAttribute_ScheduledTime(),
		"resources":   []any{awsscheduler.ContextAttribute_ScheduleArn()},
		"detail":      map[string]any{"attempt": awsscheduler.ContextAttribute_AttemptNumber()},
	})
}

// newSchedule creates spec's schedule with its own dead-letter queue and
// returns the queue.
func newSchedule(stack awscdk.Stack, fn awslambda.IFunction, spec scheduleSpec) awssqs.Queue {
	id := constructID(spec.function)
	dlq := newFailureQueue(stack, id+"ScheduleDLQ")
	awsscheduler.NewSchedule(stack, jsii.String(id+"Schedule"), &awsscheduler.ScheduleProps{
		Description: jsii.String("StreamOps " + spec.function + ": " + spec.expression),
		Schedule:    awsscheduler.ScheduleExpression_Expression(jsii.String(spec.expression), nil),
		TimeWindow:  awsscheduler.TimeWindow_Off(),
		Target: awsschedulertargets.NewLambdaInvoke(fn, &awsschedulertargets.ScheduleTargetBaseProps{
			Input:           scheduledEventInput(),
			RetryAttempts:   jsii.Number(spec.retryAttempts),
			MaxEventAge:     spec.maxEventAge,
			DeadLetterQueue: dlq,
		}),
	})
	return dlq
}
