package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// consumerLagAlarm pages when spec's consumer group stays behind on its
// topic: more than Config.OffsetLagThreshold records for 15 minutes. The
// mappings retry a failed batch until it succeeds and skip nothing
// (internal/eventsource), so this is the alarm that says records are
// waiting, for a dependency that is down or a consumer too slow for its
// traffic, and it clears only once the group has caught up.
//
// Lambda reports the lag of a Kafka mapping as OffsetLag in AWS/Lambda, by
// FunctionName: the offsets between the last record written to the topic
// and the last one the function's consumer group processed, measured for
// the topic as a whole. Each processor has exactly one mapping, so its
// function's metric is that topic and group's lag.
func consumerLagAlarm(cfg Config, spec functionSpec, fn awslambda.Function) alarmSpec {
	return alarmSpec{
		name: constructID(spec.name) + "-OffsetLag",
		description: fmt.Sprintf("StreamOps %s: consumer group %s is more than %d records behind on topic %s for 15 minutes; "+
			"its batches keep failing (see its Errors alarm: nothing is skipped, the records wait) or it is too slow",
			spec.name, consumerGroupID(spec.name), cfg.OffsetLagThreshold, spec.consumes),
		metric:    fn.Metric(jsii.String("OffsetLag"), &awscloudwatch.MetricOptions{Period: alarmPeriod, Statistic: jsii.String("Maximum")}),
		threshold: float64(cfg.OffsetLagThreshold),
		periods:   3,
	}
}
