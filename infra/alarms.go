package main

import (
	"fmt"
	"strings"

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

// The MSK cluster's CloudWatch metrics (namespace AWS/Kafka) and their
// dimensions, as Amazon MSK publishes them for a provisioned cluster. The
// stack imports the cluster by ARN, so it cannot set the cluster's
// monitoring level: everything the alarms use is at DEFAULT (free), and
// only the dashboard's per-partition lag needs PER_TOPIC_PER_PARTITION
// (docs/deploy.md).
const (
	mskNamespace    = "AWS/Kafka"
	mskDimCluster   = "Cluster Name"
	mskDimBroker    = "Broker ID"
	mskDimGroup     = "Consumer Group"
	mskDimTopic     = "Topic"
	mskDimPartition = "Partition"

	// DEFAULT, per cluster.
	mskGlobalPartitionCount   = "GlobalPartitionCount"
	mskGlobalTopicCount       = "GlobalTopicCount"
	mskOfflinePartitionsCount = "OfflinePartitionsCount"
	// DEFAULT, per broker.
	mskDataLogsDiskUsed = "KafkaDataLogsDiskUsed"
	mskUnderReplicated  = "UnderReplicatedPartitions"
	mskUnderMinIsr      = "UnderMinIsrPartitionCount"
	// DEFAULT, per consumer group and topic (groups that commit offsets,
	// as an event source mapping's does).
	mskSumOffsetLag        = "SumOffsetLag"
	mskMaxOffsetLag        = "MaxOffsetLag"
	mskEstimatedMaxTimeLag = "EstimatedMaxTimeLag"
	// PER_TOPIC_PER_PARTITION, per consumer group, topic and partition.
	mskOffsetLag = "OffsetLag"
)

// mskDiskUsedThreshold is the share of a broker's data-log disk in use
// past which storage must grow before the broker stops taking writes:
// Amazon MSK's guidance is to act at 85 %.
const mskDiskUsedThreshold = 85

// mskClusterName is the cluster's name, the Cluster Name dimension of its
// metrics: arn:…:cluster/<name>/<uuid>.
func mskClusterName(clusterArn string) string {
	_, rest, _ := strings.Cut(clusterArn, ":cluster/")
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// mskClusterMetric is a per-cluster metric of cluster.
func mskClusterMetric(cluster, name, stat string) awscloudwatch.IMetric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(mskNamespace), MetricName: jsii.String(name),
		DimensionsMap: &map[string]*string{mskDimCluster: jsii.String(cluster)},
		Period:        alarmPeriod, Statistic: jsii.String(stat),
	})
}

// mskBrokersQuery is agg (MAX, SUM) of a per-broker metric over every
// broker of cluster, as one series: a CloudWatch Metrics Insights query,
// which an alarm may watch, so the alarm follows the brokers the cluster
// has without the stack knowing their ids.
func mskBrokersQuery(cluster, agg, name string) awscloudwatch.IMetric {
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf(`SELECT %s(%s) FROM SCHEMA(%q, %q, %q) WHERE %q = '%s'`,
			agg, name, mskNamespace, mskDimBroker, mskDimCluster, mskDimCluster, cluster)),
		Period: alarmPeriod,
		Label:  jsii.String(strings.ToLower(agg) + " " + name),
	})
}

// mskPerBroker is one line per broker of cluster for a per-broker metric
// (a SEARCH, for graphs only).
func mskPerBroker(cluster, name, stat string) awscloudwatch.IMetric {
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf(`SEARCH('{%s,"%s","%s"} MetricName="%s" "%s"="%s"', '%s', 300)`,
			mskNamespace, mskDimBroker, mskDimCluster, name, mskDimCluster, cluster, stat)),
		Label: jsii.String(""),
	})
}

// mskGroupLag is a consumer-lag metric of consumer group on topic.
func mskGroupLag(cluster, name, group, topic string) awscloudwatch.IMetric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(mskNamespace), MetricName: jsii.String(name),
		DimensionsMap: &map[string]*string{
			mskDimCluster: jsii.String(cluster), mskDimGroup: jsii.String(group), mskDimTopic: jsii.String(topic),
		},
		Period: alarmPeriod, Statistic: jsii.String("Maximum"), Label: jsii.String(topic + " " + group + " " + name),
	})
}

// mskPartitionLag is one line per partition of every consumer group of
// cluster (OffsetLag, a SEARCH for graphs only; PER_TOPIC_PER_PARTITION).
func mskPartitionLag(cluster string) awscloudwatch.IMetric {
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf(`SEARCH('{%s,"%s","%s","%s","%s"} MetricName="%s" "%s"="%s"', 'Maximum', 300)`,
			mskNamespace, mskDimCluster, mskDimGroup, mskDimTopic, mskDimPartition, mskOffsetLag, mskDimCluster, cluster)),
		Label: jsii.String(""),
	})
}

// mskAlarms watch the cluster the topics live on: a broker's data disk
// filling up, partitions with fewer in-sync replicas than their
// replication factor (a follower that lags past replica.lag.time.max.ms
// leaves the ISR: replication lag) for 15 minutes, longer than a rolling
// broker restart keeps them so; partitions below min.insync.replicas,
// which refuse the producers' acks=all writes now; and partitions with no
// leader at all.
func mskAlarms(cfg Config) []alarmSpec {
	cluster := mskClusterName(cfg.MSKClusterArn)
	return []alarmSpec{
		{name: "MSK-DataLogsDiskUsed", threshold: mskDiskUsedThreshold, metric: mskBrokersQuery(cluster, "MAX", mskDataLogsDiskUsed),
			description: fmt.Sprintf("StreamOps MSK %s: a broker's data-log disk is more than %d%% used; grow its storage before it stops taking writes", cluster, mskDiskUsedThreshold)},
		{name: "MSK-UnderReplicatedPartitions", periods: 3, metric: mskBrokersQuery(cluster, "SUM", mskUnderReplicated),
			description: "StreamOps MSK " + cluster + ": partitions under-replicated (replicas lagging out of the ISR) for 15 minutes"},
		{name: "MSK-UnderMinIsrPartitions", metric: mskBrokersQuery(cluster, "SUM", mskUnderMinIsr),
			description: "StreamOps MSK " + cluster + ": partitions below min.insync.replicas refuse acks=all writes; publishes fail and the retry-sweeper holds the events"},
		{name: "MSK-OfflinePartitions", metric: mskClusterMetric(cluster, mskOfflinePartitionsCount, "Maximum"),
			description: "StreamOps MSK " + cluster + ": partitions without a leader; nothing is produced to or consumed from them"},
	}
}

// Dead-letter metrics the functions emit as EMF (internal/metrics): the
// stream core's DeadLettered, per batch, counts the records a processor
// set aside to its topic's dead-letter topic (workflow-processor:
// workflows.dlq, task-processor: tasks.dlq); the outbox relay's
// OutboxDeadLettered the deliveries (partner or Kafka) it gave up on; the
// retry-sweeper's SweeperDeadLettered the stored events Kafka refused for
// good or that stayed unpublished too long.
const (
	metricDeadLettered = "DeadLettered"
	// Published and PublishLatency (internal/emit) are every emitter's;
	// Records and BatchLatency the stream core's, per batch.
	metricPublished           = "Published"
	metricPublishLatency      = "PublishLatency"
	metricRecords             = "Records"
	metricBatchLatency        = "BatchLatency"
	metricOutboxDeadLettered  = "OutboxDeadLettered"
	metricSweeperDeadLettered = "SweeperDeadLettered"
)

// consumedTopics is the topic each event source mapping feeds its
// function, by function.
func consumedTopics() map[string]string {
	out := map[string]string{}
	for _, spec := range functionSpecs() {
		if spec.kafka == kafkaConsume {
			out[spec.name] = spec.consumes
		}
	}
	return out
}

// deadLetterAlarms: one dead letter is one a human must look at (GET
// /api/dead-letters, the operations console), as one message in a failure
// queue is: records a processor dead-lettered to its topic's dead-letter
// topic, deliveries the outbox relay gave up on, events the retry-sweeper
// gave up publishing.
func deadLetterAlarms() []alarmSpec {
	consumers := consumedTopics()
	var out []alarmSpec
	for _, fn := range sortedKeys(consumers) {
		dlq := consumers[fn] + dlqSuffix
		out = append(out, alarmSpec{name: constructID(fn) + "-DeadLettered", metric: emfSum(metricDeadLettered, fn),
			description: "StreamOps " + fn + ": records dead-lettered to " + dlq + " (GET /api/dead-letters)"})
	}
	return append(out,
		alarmSpec{name: "OutboxRelay-DeadLettered", metric: emfSum(metricOutboxDeadLettered, fnOutboxRelay),
			description: "StreamOps outbox-relay: deliveries (to partners or Kafka) dead-lettered after their retries (GET /api/dead-letters)"},
		alarmSpec{name: "RetrySweeper-DeadLettered", metric: emfSum(metricSweeperDeadLettered, fnRetrySweeper),
			description: "StreamOps retry-sweeper: stored events given up on unpublished (GET /api/dead-letters)"},
	)
}
