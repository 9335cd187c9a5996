package main

import (
	"fmt"
	"time"

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

// schedulePeriod is how often outbox-relay and retry-sweeper run. The
// schedules' rate, the relay's STREAMOPS_SCHEDULE_PERIOD and its timeout
// (relayTimeout) all derive from it, so the relay's serving window always
// matches the schedule that wakes it.
const schedulePeriod = time.Minute

// relaySettleMargin is how long before its deadline a relay run stops
// claiming, so the batch in flight settles (internal/outbox
// DefaultSafetyMargin: more than one partner delivery's timeout).
const relaySettleMargin = 15 * time.Second

// relayTimeout is the outbox relay's timeout: it serves for one period,
// then settles its batch in flight (internal/outbox RunTimeout).
func relayTimeout() awscdk.Duration {
	return awscdk.Duration_Seconds(jsii.Number((schedulePeriod + relaySettleMargin).Seconds()))
}

// rateExpression is Scheduler's rate(…) for a whole number of minutes.
func rateExpression(d time.Duration) string {
	n := int(d / time.Minute)
	if n == 1 {
		return "rate(1 minute)"
	}
	return fmt.Sprintf("rate(%d minutes)", n)
}

// scheduleSpecs are the three scheduled functions.
func scheduleSpecs() []scheduleSpec {
	return []scheduleSpec{
		// Every schedulePeriod. A tick that cannot be delivered within two
		// minutes is worthless: the next ticks do the same work.
		{function: fnOutboxRelay, expression: rateExpression(schedulePeriod), retryAttempts: 2, maxEventAge: awscdk.Duration_Minutes(jsii.Number(2))},
		{function: fnRetrySweeper, expression: rateExpression(schedulePeriod), retryAttempts: 2, maxEventAge: awscdk.Duration_Minutes(jsii.Number(2))},
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
