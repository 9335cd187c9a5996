package main

import (
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"
)

// TestConsumerLagAlarmPerTopicAndConsumerGroup: every event source mapping
// of the template, found from the template itself (its function, topic and
// consumer group), has one offset-lag alarm on its function's OffsetLag
// that names the topic and the group, pages the alarm topic and tells it
// when the group has caught up.
func TestConsumerLagAlarmPerTopicAndConsumerGroup(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	mappings := resources(raw, "AWS::Lambda::EventSourceMapping")
	if len(mappings) != 2 {
		t.Fatalf("found %d mappings, want one per processor", len(mappings))
	}
	alarms := resources(raw, "AWS::CloudWatch::Alarm")
	for id, m := range mappings {
		p := props(m)
		fn := render(p["FunctionName"])
		topic := p["Topics"].([]any)[0].(string)
		group := p["AmazonManagedKafkaEventSourceConfig"].(map[string]any)["ConsumerGroupId"].(string)
		t.Run(topic+"/"+group, func(t *testing.T) {
			var found []string
			for aid, a := range alarms {
				ap := props(a)
				dims, _ := ap["Dimensions"].([]any)
				if ap["MetricName"] != "OffsetLag" || len(dims) != 1 || render(dims[0].(map[string]any)["Value"]) != fn {
					continue
				}
				found = append(found, aid)
				desc, _ := ap["AlarmDescription"].(string)
				for _, want := range []string{"topic " + topic, "consumer group " + group} {
					if !strings.Contains(desc, want) {
						t.Errorf("alarm %s of mapping %s: description %q does not name %s", aid, id, desc, want)
					}
				}
			}
			if len(found) != 1 {
				t.Fatalf("mapping %s (%s): OffsetLag alarms %v, want one", id, fn, found)
			}
			assertTemplate(t, "alarm of "+topic, func() {
				tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj(map[string]any{
					"Namespace":          "AWS/Lambda",
					"MetricName":         "OffsetLag",
					"Statistic":          "Maximum",
					"Period":             300,
					"EvaluationPeriods":  3,
					"Threshold":          1000,
					"ComparisonOperator": "GreaterThanThreshold",
					"Dimensions":         []any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": strings.TrimPrefix(fn, "ref:")}}},
					"AlarmActions":       []any{testAlarmTopicArn},
					"OKActions":          []any{testAlarmTopicArn},
				}))
			})
		})
	}
}
