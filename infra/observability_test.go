package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testClusterName is testClusterArn's cluster, the Cluster Name dimension.
const testClusterName = "streamops-test"

// mskQueryAlarms are the MSK alarms over every broker of the cluster: the
// Metrics Insights query each watches, its threshold and its periods.
var mskQueryAlarms = []struct {
	name, query string
	threshold   float64
	periods     float64
}{
	{"MSK-DataLogsDiskUsed", `SELECT MAX(KafkaDataLogsDiskUsed) FROM SCHEMA("AWS/Kafka", "Broker ID", "Cluster Name") WHERE "Cluster Name" = 'streamops-test'`, 85, 1},
	{"MSK-UnderReplicatedPartitions", `SELECT SUM(UnderReplicatedPartitions) FROM SCHEMA("AWS/Kafka", "Broker ID", "Cluster Name") WHERE "Cluster Name" = 'streamops-test'`, 0, 3},
	{"MSK-UnderMinIsrPartitions", `SELECT SUM(UnderMinIsrPartitionCount) FROM SCHEMA("AWS/Kafka", "Broker ID", "Cluster Name") WHERE "Cluster Name" = 'streamops-test'`, 0, 1},
}

// The MSK disk and replication alarms watch every broker of the imported
// cluster through one Metrics Insights query each, so a broker added later
// is watched without a deploy, and notify the alarm topic.
func TestMSKAlarmsWatchEveryBroker(t *testing.T) {
	assert.Equal(t, testClusterName, mskClusterName(testClusterArn))
	tmpl, _ := stackTemplate(t)
	for _, a := range mskQueryAlarms {
		t.Run(a.name, func(t *testing.T) {
			assertTemplate(t, a.name, func() {
				tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj(map[string]any{
					"AlarmName": stackName + "-" + a.name,
					"Metrics": []any{obj(map[string]any{
						"Expression": a.query, "Period": 300, "ReturnData": true,
					})},
					"Threshold":          a.threshold,
					"EvaluationPeriods":  a.periods,
					"ComparisonOperator": "GreaterThanThreshold",
					"TreatMissingData":   "notBreaching",
					"AlarmActions":       []any{testAlarmTopicArn},
					"OKActions":          []any{testAlarmTopicArn},
				}))
			})
		})
	}
}

// dashboardBody is the dashboard's JSON body, its tokens rendered.
func dashboardBody(t *testing.T, raw map[string]any) string {
	t.Helper()
	dashboards := resources(raw, "AWS::CloudWatch::Dashboard")
	require.Len(t, dashboards, 1)
	for _, d := range dashboards {
		return render(props(d)["DashboardBody"])
	}
	return ""
}

// widgetMetrics lists the metrics and expressions of every graph widget of
// body by title: a metric as "namespace metric dim=value,…", an
// expression as itself.
func widgetMetrics(t *testing.T, body string) map[string][]string {
	t.Helper()
	var dash struct {
		Widgets []struct {
			Properties struct {
				Title   string  `json:"title"`
				Metrics [][]any `json:"metrics"`
			} `json:"properties"`
		} `json:"widgets"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &dash), body)
	out := map[string][]string{}
	for _, w := range dash.Widgets {
		for _, m := range w.Properties.Metrics {
			var parts []string
			for _, v := range m {
				switch v := v.(type) {
				case string:
					parts = append(parts, v)
				case map[string]any:
					if e, ok := v["expression"].(string); ok {
						parts = append(parts, e)
					}
				}
			}
			out[w.Properties.Title] = append(out[w.Properties.Title], strings.Join(parts, " "))
		}
	}
	return out
}

// The dashboard shows seed 003's "Key Metrics to Track": the producer's
// events published and publish latency, the consumer's events consumed
// and processing latency (EMF), Kafka's partition count, disk usage,
// replication lag and consumer lag per topic and group (the MSK cluster's
// metrics), and every dead-letter count.
func TestDashboardShowsSeed003sKafkaMetricsAndDeadLetters(t *testing.T) {
	_, raw := stackTemplate(t)
	// The body is a Fn::Join of strings and tokens; render gives it whole
	// when it holds no token, which the MSK and EMF widgets do not need.
	body := dashboardBody(t, raw)
	if !strings.HasPrefix(body, "{") {
		t.Fatalf("dashboard body is not rendered JSON: %.200s", body)
	}
	got := widgetMetrics(t, body)
	search := func(dims, metric string) string {
		return fmt.Sprintf(`SEARCH('{AWS/Kafka,%s} MetricName="%s" "Cluster Name"="streamops-test"', 'Maximum', 300)`, dims, metric)
	}
	tests := []struct {
		widget string
		want   []string
	}{
		{"MSK partitions and topics", []string{
			"AWS/Kafka GlobalPartitionCount Cluster Name streamops-test",
			"AWS/Kafka GlobalTopicCount Cluster Name streamops-test",
			"AWS/Kafka OfflinePartitionsCount Cluster Name streamops-test",
		}},
		{"MSK data-log disk used per broker (%)", []string{search(`"Broker ID","Cluster Name"`, "KafkaDataLogsDiskUsed")}},
		{"MSK replication: under-replicated and under-min-ISR partitions", []string{
			search(`"Broker ID","Cluster Name"`, "UnderReplicatedPartitions"),
			search(`"Broker ID","Cluster Name"`, "UnderMinIsrPartitionCount"),
		}},
		{"MSK consumer lag per topic and group (records)", []string{
			"AWS/Kafka SumOffsetLag Cluster Name streamops-test Consumer Group streamops-workflow-processor Topic workflows",
			"AWS/Kafka MaxOffsetLag Cluster Name streamops-test Consumer Group streamops-workflow-processor Topic workflows",
			"AWS/Kafka SumOffsetLag Cluster Name streamops-test Consumer Group streamops-task-processor Topic tasks",
			"AWS/Kafka MaxOffsetLag Cluster Name streamops-test Consumer Group streamops-task-processor Topic tasks",
		}},
		{"MSK consumer time lag per topic and group (s)", []string{
			"AWS/Kafka EstimatedMaxTimeLag Cluster Name streamops-test Consumer Group streamops-workflow-processor Topic workflows",
			"AWS/Kafka EstimatedMaxTimeLag Cluster Name streamops-test Consumer Group streamops-task-processor Topic tasks",
		}},
		{"MSK consumer lag per partition (records; PER_TOPIC_PER_PARTITION)", []string{
			search(`"Cluster Name","Consumer Group","Topic","Partition"`, "OffsetLag"),
		}},
		{"Events published and consumed (EMF)", []string{
			"StreamOps Published Function webhook",
			"StreamOps Published Function api",
			"StreamOps Records Function workflow-processor",
			"StreamOps Records Function task-processor",
		}},
		{"Publish latency p50/p95/p99 (ms, EMF)", []string{
			"StreamOps PublishLatency Function webhook", "StreamOps PublishLatency Function webhook", "StreamOps PublishLatency Function webhook",
			"StreamOps PublishLatency Function api", "StreamOps PublishLatency Function api", "StreamOps PublishLatency Function api",
		}},
		{"Batch processing latency p50/p95/p99 (ms, EMF)", []string{
			"StreamOps BatchLatency Function workflow-processor", "StreamOps BatchLatency Function workflow-processor", "StreamOps BatchLatency Function workflow-processor",
			"StreamOps BatchLatency Function task-processor", "StreamOps BatchLatency Function task-processor", "StreamOps BatchLatency Function task-processor",
		}},
		{"Dead letters (EMF)", []string{
			"StreamOps DeadLettered Function workflow-processor",
			"StreamOps DeadLettered Function task-processor",
			"StreamOps OutboxDeadLettered Function outbox-relay",
			"StreamOps SweeperDeadLettered Function retry-sweeper",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.widget, func(t *testing.T) {
			assert.ElementsMatch(t, tc.want, got[tc.widget])
		})
	}
}

// eventLogSample reaches every function as STREAMOPS_EVENT_LOG_SAMPLE: 1
// (every event's lines) unless the context sets a share; a share out of
// 0..1 is refused by name.
func TestEventLogSampleReachesEveryFunction(t *testing.T) {
	_, byDefault := stackTemplate(t)
	sampled, err := synth(map[string]any{ctxEventLogSample: "0.05"})
	require.NoError(t, err)
	for want, raw := range map[string]map[string]any{"1": byDefault, "0.05": sampled.json} {
		for _, name := range functionNames {
			env := props(resources(raw, "AWS::Lambda::Function")[functionID(t, raw, name)])["Environment"].(map[string]any)["Variables"].(map[string]any)
			assert.Equal(t, want, env[envEventLogSample], name)
		}
	}
	_, err = synth(map[string]any{ctxEventLogSample: "2"})
	require.ErrorContains(t, err, ctxEventLogSample)
}
