package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/jsii-runtime-go"
)

// dashboardInputs is what the dashboard shows.
type dashboardInputs struct {
	api       awsapigatewayv2.HttpApi
	functions map[string]awslambda.Function
	consumers []string
	queues    map[string]awssqs.Queue
	alarms    []awscloudwatch.Alarm
	// cluster is the MSK cluster's name (mskClusterName).
	cluster string
}

// newDashboard creates the one StreamOps dashboard: alarm states first,
// then the path of an event (API, functions, Kafka lag, failure queues,
// the outbox).
func newDashboard(stack awscdk.Stack, in dashboardInputs) {
	var alarms []interfacesawscloudwatch.IAlarmRef
	for _, a := range in.alarms {
		alarms = append(alarms, a)
	}
	perFunction := func(metric func(awslambda.Function) awscloudwatch.IMetric) *[]awscloudwatch.IMetric {
		var ms []awscloudwatch.IMetric
		for _, name := range functionNames {
			ms = append(ms, metric(in.functions[name]))
		}
		return &ms
	}
	labelled := func(name, stat string, m func(*awscloudwatch.MetricOptions) awscloudwatch.Metric) awscloudwatch.IMetric {
		return m(&awscloudwatch.MetricOptions{Label: jsii.String(name), Statistic: jsii.String(stat)})
	}
	graph := func(title string, metrics *[]awscloudwatch.IMetric) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(title), Left: metrics, Width: jsii.Number(8), Height: jsii.Number(6),
		})
	}
	var lags, depths []awscloudwatch.IMetric
	for _, name := range in.consumers {
		lags = append(lags, in.functions[name].Metric(jsii.String("OffsetLag"),
			&awscloudwatch.MetricOptions{Label: jsii.String(name), Statistic: jsii.String("Maximum")}))
	}
	for _, id := range sortedKeys(in.queues) {
		depths = append(depths, in.queues[id].MetricApproximateNumberOfMessagesVisible(
			&awscloudwatch.MetricOptions{Label: jsii.String(id), Statistic: jsii.String("Maximum")}))
	}
	var groupLags, timeLags []awscloudwatch.IMetric
	deadLetters := []awscloudwatch.IMetric{}
	topics := consumedTopics()
	for _, name := range in.consumers {
		group, topic := consumerGroupID(name), topics[name]
		groupLags = append(groupLags, mskGroupLag(in.cluster, mskSumOffsetLag, group, topic), mskGroupLag(in.cluster, mskMaxOffsetLag, group, topic))
		timeLags = append(timeLags, mskGroupLag(in.cluster, mskEstimatedMaxTimeLag, group, topic))
		deadLetters = append(deadLetters, emfMetric(metricDeadLettered, name))
	}
	deadLetters = append(deadLetters, emfMetric(metricOutboxDeadLettered, fnOutboxRelay), emfMetric(metricSweeperDeadLettered, fnRetrySweeper))
	var throughput, publishLatency, batchLatency []awscloudwatch.IMetric
	percentiles := func(name, function string) []awscloudwatch.IMetric {
		var out []awscloudwatch.IMetric
		for _, p := range []string{"p50", "p95", "p99"} {
			out = append(out, emfSum(name, function).With(&awscloudwatch.MetricOptions{
				Statistic: jsii.String(p), Label: jsii.String(function + " " + name + " " + p)}))
		}
		return out
	}
	for _, fn := range []string{fnWebhook, fnAPI} {
		throughput = append(throughput, emfMetric(metricPublished, fn))
		publishLatency = append(publishLatency, percentiles(metricPublishLatency, fn)...)
	}
	for _, fn := range in.consumers {
		throughput = append(throughput, emfMetric(metricRecords, fn))
		batchLatency = append(batchLatency, percentiles(metricBatchLatency, fn)...)
	}
	api := in.api
	rows := [][]awscloudwatch.IWidget{
		{awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
			Title: jsii.String("StreamOps alarms"), Alarms: &alarms, Width: jsii.Number(24),
		})},
		{
			graph("HTTP API requests", &[]awscloudwatch.IMetric{
				labelled("requests", "Sum", api.MetricCount),
				labelled("4xx", "Sum", api.MetricClientError),
				labelled("5xx", "Sum", api.MetricServerError),
			}),
			graph("HTTP API latency p99 (ms)", &[]awscloudwatch.IMetric{
				labelled("latency", "p99", api.MetricLatency),
				labelled("integration", "p99", api.MetricIntegrationLatency),
			}),
			graph("Webhooks and publishing (EMF)", &[]awscloudwatch.IMetric{
				emfMetric("WebhooksAccepted", fnWebhook), emfMetric("WebhooksDuplicate", fnWebhook),
				emfMetric("PublishFailures", fnWebhook), emfMetric("PublishFailures", fnAPI),
			}),
		},
		{
			graph("Invocations", perFunction(func(f awslambda.Function) awscloudwatch.IMetric {
				return f.MetricInvocations(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum")})
			})),
			graph("Errors", perFunction(func(f awslambda.Function) awscloudwatch.IMetric {
				return f.MetricErrors(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum")})
			})),
			graph("Throttles", perFunction(func(f awslambda.Function) awscloudwatch.IMetric {
				return f.MetricThrottles(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum")})
			})),
		},
		{
			graph("Duration p99 (ms)", perFunction(func(f awslambda.Function) awscloudwatch.IMetric {
				return f.MetricDuration(&awscloudwatch.MetricOptions{Statistic: jsii.String("p99")})
			})),
			graph("Kafka consumer lag (records)", &lags),
			graph("Failure queues (messages)", &depths),
		},
		{
			graph("Oldest pending outbox entry (s)", &[]awscloudwatch.IMetric{outboxAgeMetric()}),
			graph("Outbox deliveries (EMF)", &[]awscloudwatch.IMetric{
				emfMetric("OutboxDelivered", fnOutboxRelay), emfMetric("OutboxRetried", fnOutboxRelay),
				emfMetric("OutboxDeadLettered", fnOutboxRelay),
			}),
			graph("Dead letters (EMF)", &deadLetters),
		},
		// Seed 003's producer and consumer metrics: events published and
		// consumed, publish and processing latency, failures.
		{
			graph("Events published and consumed (EMF)", &throughput),
			graph("Publish latency p50/p95/p99 (ms, EMF)", &publishLatency),
			graph("Batch processing latency p50/p95/p99 (ms, EMF)", &batchLatency),
		},
		// Seed 003's Kafka metrics: partition count, disk usage,
		// replication lag, and consumer lag per topic and group.
		{
			graph("MSK partitions and topics", &[]awscloudwatch.IMetric{
				mskClusterMetric(in.cluster, mskGlobalPartitionCount, "Maximum"),
				mskClusterMetric(in.cluster, mskGlobalTopicCount, "Maximum"),
				mskClusterMetric(in.cluster, mskOfflinePartitionsCount, "Maximum"),
			}),
			graph("MSK data-log disk used per broker (%)", &[]awscloudwatch.IMetric{
				mskPerBroker(in.cluster, mskDataLogsDiskUsed, "Maximum"),
			}),
			graph("MSK replication: under-replicated and under-min-ISR partitions", &[]awscloudwatch.IMetric{
				mskPerBroker(in.cluster, mskUnderReplicated, "Maximum"),
				mskPerBroker(in.cluster, mskUnderMinIsr, "Maximum"),
			}),
		},
		{
			graph("MSK consumer lag per topic and group (records)", &groupLags),
			graph("MSK consumer time lag per topic and group (s)", &timeLags),
			graph("MSK consumer lag per partition (records; PER_TOPIC_PER_PARTITION)", &[]awscloudwatch.IMetric{mskPartitionLag(in.cluster)}),
		},
	}
	widgets := make([]*[]awscloudwatch.IWidget, 0, len(rows))
	for i := range rows {
		widgets = append(widgets, &rows[i])
	}
	awscloudwatch.NewDashboard(stack, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName:   jsii.String(*stack.StackName()),
		DefaultInterval: awscdk.Duration_Hours(jsii.Number(3)),
		Widgets:         &widgets,
	})
}

// emfSum is a StreamOps EMF metric of one function, summed per alarm
// period. Unlabelled, so an alarm on it is a plain metric alarm.
func emfSum(name, function string) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(metricsNamespace),
		MetricName:    jsii.String(name),
		DimensionsMap: &map[string]*string{metricDimensionFunction: jsii.String(function)},
		Period:        alarmPeriod,
		Statistic:     jsii.String("Sum"),
	})
}

// emfMetric is emfSum labelled with its function, for graphs.
func emfMetric(name, function string) awscloudwatch.IMetric {
	return emfSum(name, function).With(&awscloudwatch.MetricOptions{Label: jsii.String(function + " " + name)})
}
