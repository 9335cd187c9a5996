package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// alarmPeriod is the evaluation period of every alarm.
var alarmPeriod = awscdk.Duration_Minutes(jsii.Number(5))

// alarmSpec is one alarm: metric crosses threshold for periods × 5 min.
type alarmSpec struct {
	// name follows the stack name in the alarm's name: StreamOps-<name>.
	name        string
	description string
	metric      awscloudwatch.IMetric
	threshold   float64
	// periods is how many consecutive periods must breach; 1 when unset.
	periods float64
}

// alarms creates every alarm, each notifying the topic on alarm and on
// recovery, and returns them for the dashboard. Missing data never alarms:
// an idle function or an empty queue reports nothing.
func alarms(stack awscdk.Stack, cfg Config, specs []alarmSpec) []awscloudwatch.Alarm {
	topic := awssns.Topic_FromTopicArn(stack, jsii.String("AlarmTopic"), jsii.String(cfg.AlarmTopicArn))
	action := awscloudwatchactions.NewSnsAction(topic)
	var out []awscloudwatch.Alarm
	for _, s := range specs {
		periods := s.periods
		if periods == 0 {
			periods = 1
		}
		alarm := awscloudwatch.NewAlarm(stack, jsii.String("Alarm"+s.name), &awscloudwatch.AlarmProps{
			AlarmName:          jsii.String(*stack.StackName() + "-" + s.name),
			AlarmDescription:   jsii.String(s.description),
			Metric:             s.metric,
			Threshold:          jsii.Number(s.threshold),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
			EvaluationPeriods:  jsii.Number(periods),
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		})
		alarm.AddAlarmAction(action)
		alarm.AddOkAction(action)
		out = append(out, alarm)
	}
	return out
}

// functionAlarms: any error or throttle of a function in five minutes.
// Errors of the processors mean a batch is being retried; of the scheduled
// functions, a run that did nothing; throttles, that concurrency (reserved
// or the account's) ran out.
func functionAlarms(name string, fn awslambda.Function) []alarmSpec {
	opts := &awscloudwatch.MetricOptions{Period: alarmPeriod, Statistic: jsii.String("Sum")}
	id := constructID(name)
	return []alarmSpec{
		{name: id + "-Errors", description: "StreamOps " + name + ": invocations failed", metric: fn.MetricErrors(opts)},
		{name: id + "-Throttles", description: "StreamOps " + name + ": invocations throttled", metric: fn.MetricThrottles(opts)},
	}
}

// queueDepthMetric is the number of messages waiting in a failure queue.
func queueDepthMetric(q awssqs.Queue) awscloudwatch.IMetric {
	return q.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{Period: alarmPeriod, Statistic: jsii.String("Maximum")})
}

// queueAlarm: one message in a failure queue is one a human must look at.
func queueAlarm(id, what string, q awssqs.Queue) alarmSpec {
	return alarmSpec{
		name:        id,
		description: "StreamOps: " + what + " (messages in " + id + ")",
		metric:      queueDepthMetric(q),
		threshold:   0,
	}
}

// outboxAgeMetric is the EMF metric outbox-relay emits on every run.
func outboxAgeMetric() awscloudwatch.IMetric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(metricsNamespace),
		MetricName:    jsii.String(metricOldestPendingOutboxAge),
		DimensionsMap: &map[string]*string{metricDimensionFunction: jsii.String(fnOutboxRelay)},
		Period:        alarmPeriod,
		Statistic:     jsii.String("Maximum"),
	})
}

// outboxAgeAlarm: pending outbox entries are not being delivered.
func outboxAgeAlarm(cfg Config) alarmSpec {
	return alarmSpec{
		name:        "OutboxRelay-OldestPendingAge",
		description: "StreamOps outbox-relay: the oldest pending outbox entry is older than the threshold",
		metric:      outboxAgeMetric(),
		threshold:   float64(cfg.OutboxAgeAlarmSeconds),
	}
}
