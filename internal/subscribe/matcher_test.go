package subscribe_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/subscribe"
)

// order is a workflow.completed event with a payload rich enough for
// every operator: numbers of both kinds, nested objects, arrays of values
// and of objects.
func order() events.Envelope {
	return events.Envelope{
		EventType: events.WorkflowCompleted,
		EventID:   "evt-1",
		Timestamp: events.At(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)),
		Payload: json.RawMessage(`{"workflowId":"wf-1","name":"orders","amount":100,"ratio":0.5,
			"customer":{"tier":"gold","country":"FR"},"tags":["eu","priority"],
			"lines":[{"sku":"a","qty":2},{"sku":"b","qty":5}],"note":null,"$date":"kept as a field"}`),
		Metadata: &events.Metadata{Source: "workflow-processor", PartnerID: "acme", CorrelationID: "corr-1"},
	}
}

func TestSubscriptionFilterEvaluatesEveryOperatorAsMongoDB(t *testing.T) {
	cases := []struct {
		name   string
		filter string
		want   bool
	}{
		{"no filter", ``, true},
		{"empty object", `{}`, true},
		{"implicit equality", `{"payload.name": "orders"}`, true},
		{"implicit equality misses", `{"payload.name": "refunds"}`, false},
		{"event type field", `{"eventType": "workflow.completed"}`, true},
		{"metadata path", `{"metadata.partnerId": "acme"}`, true},
		{"$eq", `{"payload.customer.tier": {"$eq": "gold"}}`, true},
		{"$eq misses", `{"payload.customer.tier": {"$eq": "silver"}}`, false},
		{"$ne", `{"payload.customer.tier": {"$ne": "silver"}}`, true},
		{"$ne on equal", `{"payload.customer.tier": {"$ne": "gold"}}`, false},
		{"$gt", `{"payload.amount": {"$gt": 99}}`, true},
		{"$gt on equal", `{"payload.amount": {"$gt": 100}}`, false},
		{"$gte", `{"payload.amount": {"$gte": 100}}`, true},
		{"$lt", `{"payload.amount": {"$lt": 100.5}}`, true},
		{"$lt on equal", `{"payload.amount": {"$lt": 100}}`, false},
		{"$lte", `{"payload.amount": {"$lte": 100}}`, true},
		{"range", `{"payload.amount": {"$gt": 50, "$lt": 150}}`, true},
		{"range misses", `{"payload.amount": {"$gt": 50, "$lt": 80}}`, false},
		{"an integer equals its double", `{"payload.amount": 100.0}`, true},
		{"a double compares with an integer", `{"payload.ratio": {"$lt": 1}}`, true},
		{"$in", `{"payload.customer.country": {"$in": ["DE", "FR"]}}`, true},
		{"$in misses", `{"payload.customer.country": {"$in": ["DE", "IT"]}}`, false},
		{"$nin", `{"payload.customer.country": {"$nin": ["DE", "IT"]}}`, true},
		{"$nin misses", `{"payload.customer.country": {"$nin": ["FR"]}}`, false},
		{"$exists true", `{"payload.customer": {"$exists": true}}`, true},
		{"$exists false on a present field", `{"payload.customer": {"$exists": false}}`, false},
		{"$exists false on a missing field", `{"payload.coupon": {"$exists": false}}`, true},
		{"$exists true on a null field", `{"payload.note": {"$exists": true}}`, true},
		{"$and", `{"$and": [{"payload.name": "orders"}, {"payload.amount": {"$gte": 100}}]}`, true},
		{"$and with one miss", `{"$and": [{"payload.name": "orders"}, {"payload.amount": {"$gt": 100}}]}`, false},
		{"$or", `{"$or": [{"payload.name": "refunds"}, {"payload.amount": 100}]}`, true},
		{"$or misses", `{"$or": [{"payload.name": "refunds"}, {"payload.amount": 7}]}`, false},
		{"nested $or in $and", `{"$and": [{"$or": [{"payload.tags": "us"}, {"payload.tags": "eu"}]}, {"eventType": "workflow.completed"}]}`, true},
		{"array contains a value", `{"payload.tags": "priority"}`, true},
		{"array contains none", `{"payload.tags": "slow"}`, false},
		{"array $in", `{"payload.tags": {"$in": ["x", "eu"]}}`, true},
		{"array of objects by dotted path", `{"payload.lines.sku": "b"}`, true},
		{"array of objects $gt on any element", `{"payload.lines.qty": {"$gt": 4}}`, true},
		{"array of objects $gt on none", `{"payload.lines.qty": {"$gt": 5}}`, false},
		{"array by index", `{"payload.lines.0.sku": "a"}`, true},
		{"whole array equality", `{"payload.tags": ["eu", "priority"]}`, true},
		{"missing field equality", `{"payload.coupon": "x"}`, false},
		{"missing field equals null", `{"payload.coupon": null}`, true},
		{"missing field $ne", `{"payload.coupon": {"$ne": "x"}}`, true},
		{"missing field $gt", `{"payload.coupon": {"$gt": 0}}`, false},
		{"missing nested parent", `{"payload.shipping.city": "Paris"}`, false},
		{"type mismatch: a string is not greater than a number", `{"payload.name": {"$gt": 1}}`, false},
		{"type mismatch: a number is not a string", `{"payload.amount": "100"}`, false},
		{"type mismatch $lt: a number is not less than a string", `{"payload.amount": {"$lt": "zzz"}}`, false},
		{"a payload key that looks like Extended JSON is a field", `{"payload.$date": "kept as a field"}`, true},
		{"whole sub-document equality", `{"payload.customer": {"tier": "gold", "country": "FR"}}`, true},
		{"sub-document equality is ordered", `{"payload.customer": {"country": "FR", "tier": "gold"}}`, false},
	}
	env := order()
	doc, err := subscribe.DocumentOf(env)
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := subscribe.Compile(subscribe.Subscription{EventTypes: []string{"workflow.completed"}, Filter: json.RawMessage(c.filter)})
			require.NoError(t, err)
			assert.Equal(t, c.want, m.Match(env))
			assert.Equal(t, c.want, m.MatchDocument(env.EventType, doc), "MatchDocument agrees with Match")
		})
	}
}

func TestSubscriptionEventTypesSelectExactPrefixAndAll(t *testing.T) {
	cases := []struct {
		name  string
		types []string
		match []events.Type
		miss  []events.Type
	}{
		{"exact", []string{"workflow.completed"},
			[]events.Type{events.WorkflowCompleted}, []events.Type{events.WorkflowFailed, events.TaskCompleted}},
		{"prefix", []string{"task.*"},
			[]events.Type{events.TaskCreated, events.TaskDeadLetter}, []events.Type{events.WorkflowCompleted, "taskforce.x"}},
		{"operational prefix", []string{"delivery.*", "partner.*"},
			[]events.Type{events.DeliveryDeadLettered, events.PartnerBreakerOpened}, []events.Type{events.TaskFailed}},
		{"every type, a foreign one too", []string{"*"},
			[]events.Type{events.WorkflowCreated, events.SubjectErased, "vendor.custom"}, nil},
		{"several", []string{"workflow.failed", "task.dead_letter"},
			[]events.Type{events.WorkflowFailed, events.TaskDeadLetter}, []events.Type{events.WorkflowCompleted}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := subscribe.Compile(subscribe.Subscription{EventTypes: c.types})
			require.NoError(t, err)
			for _, ty := range c.match {
				assert.True(t, m.MatchesType(ty), ty)
				env := order()
				env.EventType = ty
				assert.True(t, m.Match(env), ty)
			}
			for _, ty := range c.miss {
				assert.False(t, m.MatchesType(ty), ty)
			}
		})
	}
}

func TestSubscriptionThatDoesNotCompileSaysWhy(t *testing.T) {
	cases := []struct {
		name   string
		types  []string
		filter string
		want   []string // substrings of the error
	}{
		{"no event types", nil, ``, []string{"eventTypes: at least one event type is required"}},
		{"unknown exact type lists near names", []string{"workflow.complete"}, ``,
			[]string{`eventTypes[0]: "workflow.complete" is not an event type`, "did you mean", "workflow.completed", "workflow.failed"}},
		{"a typo far from any type lists the catalog", []string{"zzz"}, ``,
			[]string{`"zzz" is not an event type; the event types are workflow.created`, "subject.erased"}},
		{"a prefix covering nothing", []string{"orders.*"}, ``, []string{`eventTypes[0]: "orders.*" covers no event type`}},
		{"a wildcard in the middle", []string{"task.*.done"}, ``, []string{`eventTypes[0]: "task.*.done": a wildcard is allowed only`}},
		{"the second type is bad", []string{"task.*", "task.oops"}, ``, []string{`eventTypes[1]: "task.oops"`, "task.dead_letter"}},
		{"filter not an object", []string{"*"}, `[{"a":1}]`, []string{"filter: must be a JSON object"}},
		{"filter a string", []string{"*"}, `"payload.name"`, []string{"filter: must be a JSON object"}},
		{"filter not JSON", []string{"*"}, `{"a":`, []string{"filter: not a valid query"}},
		{"unknown field operator", []string{"*"}, `{"payload.name": {"$regex": "^ord"}}`,
			[]string{"filter.payload.name.$regex: operator $regex is not allowed on a field; the allowed operators are $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $and, $or"}},
		{"unknown top-level operator", []string{"*"}, `{"$where": "1"}`,
			[]string{"filter.$where: operator $where is not allowed on a query", "$eq, $ne"}},
		{"$nor is not allowed", []string{"*"}, `{"$nor": [{"a": 1}]}`, []string{"operator $nor is not allowed"}},
		{"unknown operator deep in $or", []string{"*"}, `{"$or": [{"a": 1}, {"b": {"$size": 2}}]}`,
			[]string{"filter.$or[1].b.$size: operator $size is not allowed"}},
		{"$not is not allowed", []string{"*"}, `{"a": {"$not": {"$eq": 1}}}`, []string{"operator $not is not allowed"}},
		{"$in not an array", []string{"*"}, `{"payload.tier": {"$in": "gold"}}`, []string{"filter.payload.tier.$in: $in needs an array of values"}},
		{"$nin not an array", []string{"*"}, `{"payload.tier": {"$nin": {"a": 1}}}`, []string{"$nin needs an array of values"}},
		{"$and not an array", []string{"*"}, `{"$and": {"a": 1}}`, []string{"filter.$and: $and needs a non-empty array of queries"}},
		{"$or empty", []string{"*"}, `{"$or": []}`, []string{"$or needs a non-empty array"}},
		{"$or of values", []string{"*"}, `{"$or": [1]}`, []string{"filter.$or[0]: $or needs an array of query objects"}},
		{"$and on a field", []string{"*"}, `{"a": {"$and": [{"b": 1}]}}`, []string{"filter.a.$and: $and combines queries and cannot apply to a field"}},
		{"a field beside operators", []string{"*"}, `{"a": {"$gt": 1, "b": 2}}`, []string{`filter.a.b: "b" beside operators`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := subscribe.Compile(subscribe.Subscription{EventTypes: c.types, Filter: json.RawMessage(c.filter)})
			require.Error(t, err)
			var se *subscribe.Error
			require.ErrorAs(t, err, &se)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestSubscriptionFilterAcceptsExtendedJSONValues(t *testing.T) {
	// A filter is Extended JSON: {"$numberLong": …} is a number, not an
	// operator, so it is allowed and compares as one.
	m, err := subscribe.Compile(subscribe.Subscription{EventTypes: []string{"*"},
		Filter: json.RawMessage(`{"payload.amount": {"$gte": {"$numberLong": "100"}}}`)})
	require.NoError(t, err)
	assert.True(t, m.Match(order()))
}
