package capacity

import "reflect"

// Quota is one published AWS quota or list price, or an assumption where
// none was found: the model never uses a figure without one of the two.
type Quota struct {
	// Value is the figure, in Unit.
	Value float64
	// Unit is what Value counts.
	Unit string
	// Source is the page it was read from; empty for an assumption.
	Source string
	// Via names the transcription the figure was read through, where the
	// source renders its price tables in the browser and the stored copy
	// of the page has no numbers.
	Via string
	// Read is the day the source was read (YYYY-MM-DD).
	Read string
	// Assumption says why a figure has no source; empty when it has one.
	Assumption string
}

// Sourced reports whether q was read from a source.
func (q Quota) Sourced() bool { return q.Source != "" && q.Assumption == "" }

// AWS are the quotas and us-east-1 list prices the model uses.
type AWS struct {
	// LambdaConcurrency is the default concurrent executions per account
	// and Region (a soft limit).
	LambdaConcurrency Quota
	// LambdaScalingRate is how many execution environments a function
	// may add every 10 seconds.
	LambdaScalingRate Quota
	// LambdaArmGBSecond and LambdaRequests are Lambda's arm64 duration
	// price (first tier) and its request price.
	LambdaArmGBSecond Quota
	LambdaRequests    Quota
	// ESMInvocationsPerPartition is how many invocations of a Kafka event
	// source mapping read one partition at a time: it reads each
	// partition in order.
	ESMInvocationsPerPartition Quota
	// PollersPerESM is the most provisioned pollers of one Kafka event
	// source mapping.
	PollersPerESM Quota
	// PollerThroughput and PollerInvocations are what one Kafka event
	// poller handles: bytes/s or concurrent invocations.
	PollerThroughput  Quota
	PollerInvocations Quota
	// PollerHour is the price of a provisioned poller (an Event Poller
	// Unit) hour.
	PollerHour Quota
	// APIGatewayRPS is the account throttle per Region across HTTP APIs.
	APIGatewayRPS Quota
	// APIGatewayFirstTier and APIGatewayOverTier are the HTTP API price
	// per million requests up to and over APIGatewayTierRequests a month.
	APIGatewayFirstTier    Quota
	APIGatewayOverTier     Quota
	APIGatewayTierRequests Quota
	// MSKPartitionsPerBroker is the recommended partitions (replicas
	// included) of a kafka.m5.large or kafka.m7g.large Standard broker.
	MSKPartitionsPerBroker Quota
	// MSKIngressPerBroker is a Standard broker's client ingress at
	// replication factor 3 before its EBS volume's throughput ceiling.
	MSKIngressPerBroker Quota
	// MSKStoragePerBroker is a Standard broker's largest EBS volume.
	MSKStoragePerBroker Quota
	// MSKBrokerHour and MSKStorageGBMonth are the Standard broker and
	// storage prices.
	MSKBrokerHour     Quota
	MSKStorageGBMonth Quota
	// DocDBIO and DocDBStorageGBMonth are DocumentDB's (Standard storage)
	// I/O and storage prices.
	DocDBIO             Quota
	DocDBStorageGBMonth Quota
}

// All returns every quota by its field name.
func (a AWS) All() map[string]Quota {
	out := map[string]Quota{}
	v := reflect.ValueOf(a)
	for i := range v.NumField() {
		out[v.Type().Field(i).Name] = v.Field(i).Interface().(Quota)
	}
	return out
}

// read is the day the sources below were read.
const read = "2026-12-02"

// Published are the figures as read, each with its source, or marked as
// an assumption.
func Published() AWS {
	const (
		lambdaPricing = "https://aws.amazon.com/lambda/pricing/"
		msk           = "https://docs.aws.amazon.com/msk/latest/developerguide/bestpractices.html"
		mskToolkit    = "https://github.com/aws/agent-toolkit-for-aws/blob/main/skills/specialized-skills/analytics-skills/managing-amazon-msk/references/"
		docdbPricing  = "https://aws.amazon.com/documentdb/pricing/"
		apigwQuotas   = "https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html"
		apigwPrices   = "https://docs.aws.amazon.com/whitepapers/latest/best-practices-api-gateway-private-apis-integration/cost-optimization.html"
		kafkaScaling  = "https://docs.aws.amazon.com/lambda/latest/dg/kafka-scaling-modes.html"
	)
	return AWS{
		LambdaConcurrency: Quota{Value: 1000, Unit: "concurrent executions", Read: read,
			Source: "https://serverlessland.com/content/service/lambda/guides/aws-lambda-operator-guide/scaling-concurrency"},
		LambdaScalingRate: Quota{Value: 1000, Unit: "environments per 10 s per function", Read: read,
			Source: "https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html"},
		LambdaArmGBSecond: Quota{Value: 0.0000133334, Unit: "USD/GB-s", Read: read, Source: lambdaPricing,
			Via: "https://app.unpkg.com/artillery@2.0.28/files/lib/platform/aws-lambda/prices.js (base arm64 1333340 × 1e-11)"},
		LambdaRequests: Quota{Value: 0.20, Unit: "USD/million requests", Read: read, Source: lambdaPricing,
			Via: "https://raw.githubusercontent.com/api-evangelist/aws-lambda/refs/heads/main/plans/aws-lambda-plans-pricing.yml"},
		ESMInvocationsPerPartition: Quota{Value: 1, Unit: "invocation per partition", Read: read,
			Source: "https://docs.aws.amazon.com/lambda/latest/dg/with-msk.html"},
		PollersPerESM: Quota{Value: 2000, Unit: "pollers", Read: read,
			Source: "https://docs.aws.amazon.com/lambda/latest/api/API_ProvisionedPollerConfig.html"},
		PollerThroughput:  Quota{Value: 5e6, Unit: "bytes/s per poller", Read: read, Source: kafkaScaling},
		PollerInvocations: Quota{Value: 5, Unit: "concurrent invocations per poller", Read: read, Source: kafkaScaling},
		PollerHour: Quota{Unit: "USD/poller-hour", Read: read,
			Assumption: "not priced: the stored copies of " + lambdaPricing + " show no Event Poller Unit price"},
		APIGatewayRPS:          Quota{Value: 10000, Unit: "requests/s", Read: read, Source: apigwQuotas},
		APIGatewayFirstTier:    Quota{Value: 1.00, Unit: "USD/million requests", Read: read, Source: apigwPrices},
		APIGatewayOverTier:     Quota{Value: 0.90, Unit: "USD/million requests", Read: read, Source: apigwPrices},
		APIGatewayTierRequests: Quota{Value: 300e6, Unit: "requests/month", Read: read, Source: apigwPrices},
		MSKPartitionsPerBroker: Quota{Value: 1000, Unit: "partition replicas per broker", Read: read, Source: msk},
		MSKIngressPerBroker:    Quota{Value: 83 << 20, Unit: "bytes/s", Read: read, Source: mskToolkit + "size-and-choose-cluster.md"},
		MSKStoragePerBroker:    Quota{Value: 16384 << 30, Unit: "bytes", Read: read, Source: mskToolkit + "manage-storage.md"},
		MSKBrokerHour: Quota{Value: 0.21, Unit: "USD/broker-hour", Read: read,
			Assumption: "kafka.m5.large in us-east-1 as recalled, not read: the stored copies of https://aws.amazon.com/msk/pricing/ show no broker prices"},
		MSKStorageGBMonth: Quota{Value: 0.10, Unit: "USD/GB-month", Read: read,
			Assumption: "not read for MSK Provisioned; the figure MSK Serverless and DocumentDB list for storage"},
		DocDBIO: Quota{Value: 0.20, Unit: "USD/million I/Os", Read: read, Source: docdbPricing,
			Via: "https://www.usage.ai/blogs/aws/database-savings-plans/documentdb/pricing-breakdown/"},
		DocDBStorageGBMonth: Quota{Value: 0.10, Unit: "USD/GB-month", Read: read, Source: docdbPricing,
			Via: "https://www.usage.ai/blogs/aws/database-savings-plans/documentdb/pricing-breakdown/"},
	}
}
