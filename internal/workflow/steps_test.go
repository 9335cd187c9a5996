package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

func stepInput(t *testing.T, input string) StepInput {
	t.Helper()
	in, err := ParseInput([]byte(input))
	require.NoError(t, err)
	return StepInput{
		Workflow: Info{ID: "wf-7f1c3e2a-54b7-4d0e-9a51-2c8f0d7b9e13", Name: "Order Sync", CorrelationID: "corr-1"},
		StepName: "step", StepIndex: 2, At: time.Date(2026, 1, 4, 1, 9, 27, 0, time.UTC),
		Records: in.Records, Params: in.Params,
		Metadata: &events.Metadata{Source: stream.Source, ProcessorID: "worker-1", CorrelationID: "corr-1"},
		Effects:  &Effects{},
	}
}

func codeOf(err error) string {
	if se, ok := errors.AsType[*fault.Error](err); ok {
		return se.Code
	}
	return ""
}

// failsAs reports whether a case expects its step to fail with code (the
// error then carries it); a case without one must succeed.
func failsAs(t *testing.T, err error, code string) bool {
	t.Helper()
	if code == "" {
		require.NoError(t, err)
		return false
	}
	require.Equal(t, code, codeOf(err))
	return true
}

func TestParseInputReadsRecordsAndParameters(t *testing.T) {
	tests := []struct {
		name, input string
		records     int
		params      []string
		code        string
	}{
		{"no input", ``, 0, nil, ""},
		{"null input", `null`, 0, nil, ""},
		{"records and parameters", `{"records":[{"a":1},{"a":2}],"schema":{},"dataset":"x"}`, 2, []string{"dataset", "schema"}, ""},
		{"a webhook body is one record with no parameters", `{"schema":"not a parameter","id":"evt_1"}`, 1, nil, ""},
		{"not an object", `[1,2]`, 0, nil, CodeInvalidInput},
		{"records not an array", `{"records":{"a":1}}`, 0, nil, CodeInvalidInput},
		{"a record that is not an object", `{"records":[{"a":1},3]}`, 0, nil, CodeInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseInput([]byte(tt.input))
			if failsAs(t, err, tt.code) {
				return
			}
			assert.Len(t, in.Records, tt.records)
			var params []string
			for k := range in.Params {
				params = append(params, k)
			}
			slices.Sort(params)
			assert.Equal(t, tt.params, params)
		})
	}
}

func TestValidateCountsRecordsAgainstTheInputSchema(t *testing.T) {
	const schema = `"schema":{"type":"object","required":["email"],"properties":{"email":{"type":"string","format":"email"},"n":{"type":"integer"}}}`
	tests := []struct {
		name           string
		input          string
		valid, invalid int
		samples        string
		code           string
	}{
		{"no schema: every record is valid", `{"records":[{"a":1},{"b":2}]}`, 2, 0, "", ""},
		{"invalid records are counted, described and dropped",
			`{"records":[{"email":"a@example.com"},{"email":"secret-value"},{"n":1.5,"email":"b@example.com"},{}],` + schema + `}`,
			1, 3, `[{"record":1,"path":"/email","keyword":"format"},{"record":2,"path":"/n","keyword":"type"},{"record":3,"path":"","keyword":"required"}]`, ""},
		{"an email reference satisfies format email, a phone reference does not", `{"records":[` +
			`{"email":"pii:email:k3j5mq7r2v4x6z2b2d4f6h2j2l.1:AAAAAAAAAAAAAAAAAAAAAAAAAAAA"},` +
			`{"email":"pii:phone:k3j5mq7r2v4x6z2b2d4f6h2j2l.1:AAAAAAAAAAAAAAAAAAAAAAAAAAAA"},{"email":"Ann <a@example.com>"}],` + schema + `}`,
			1, 2, `[{"record":1,"path":"/email","keyword":"format"},{"record":2,"path":"/email","keyword":"format"}]`, ""},
		{"an IP reference satisfies format ipv4", `{"records":[{"ip":"pii:ip:k3j5mq7r2v4x6z2b2d4f6h2j2l.1:AAAAAAAAAAAAAAAAAAAAAAAAAAAA"},{"ip":"203.0.113.7"},{"ip":"::1"},{"ip":"1.2.3"}],` +
			`"schema":{"properties":{"ip":{"type":"string","format":"ipv4"}}}}`,
			2, 2, `[{"record":2,"path":"/ip","keyword":"format"},{"record":3,"path":"/ip","keyword":"format"}]`, ""},
		{"a schema that does not compile", `{"records":[{}],"schema":{"type":"nonsense"}}`, 0, 0, "", CodeValidate},
		{"a schema cannot read files", `{"records":[{}],"schema":{"$ref":"file:///etc/passwd"}}`, 0, 0, "", CodeValidate},
		{"a schema cannot reach the network", `{"records":[{}],"schema":{"$ref":"https://example.com/s.json"}}`, 0, 0, "", CodeValidate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ValidateStep(context.Background(), stepInput(t, tt.input))
			if failsAs(t, err, tt.code) {
				return
			}
			assert.Equal(t, tt.valid+tt.invalid, out.Result.RecordsProcessed)
			assert.Equal(t, tt.valid, out.Result.ValidRecords)
			assert.Equal(t, tt.invalid, out.Result.InvalidRecords)
			assert.Len(t, out.Records, tt.valid)
			if tt.samples != "" {
				assert.JSONEq(t, tt.samples, string(out.Result.Extra["invalidSamples"]))
				assert.NotContains(t, string(out.Result.Extra["invalidSamples"]), "secret-value", "samples never quote values")
			}
		})
	}
}

func TestTransformMapsFieldsAndNamesTheBadRecord(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
		code, msg   string
	}{
		{"no mapping: records pass", `{"records":[{"a":1}]}`, []string{`{"a":1}`}, "", ""},
		{"paths, nesting and defaults", `{"records":[{"o":{"id":"x","n":[1,2]}},{"o":{"id":"y"}}],
			"mapping":{"id":"o.id","first":{"from":"o.n.0","default":0}}}`,
			[]string{`{"first":1,"id":"x"}`, `{"first":0,"id":"y"}`}, "", ""},
		{"a missing field fails naming the record", `{"records":[{"a":1},{"b":2}],"mapping":{"x":"a"}}`, nil,
			CodeTransform, `Invalid data format in record 1: field "a" is missing`},
		{"a bad rule", `{"records":[{"a":1}],"mapping":{"x":5}}`, nil, CodeTransform, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := TransformStep(context.Background(), stepInput(t, tt.input))
			if failsAs(t, err, tt.code) {
				if tt.msg != "" {
					assert.Equal(t, tt.msg, err.(*fault.Error).Message)
				}
				return
			}
			require.Len(t, out.Records, len(tt.want))
			for i, w := range tt.want {
				assert.JSONEq(t, w, string(out.Records[i]))
			}
			assert.Equal(t, len(tt.want), out.Result.ValidRecords)
		})
	}
}

func TestStoreAsksForOneRecordPerInputWithDerivedIDs(t *testing.T) {
	tests := []struct {
		name, input, dataset, code string
	}{
		{"dataset defaults to the workflow name", `{"records":[{"a":1},{"a":2}]}`, "Order Sync", ""},
		{"dataset from the input", `{"records":[{"a":1},{"a":2}],"dataset":"orders"}`, "orders", ""},
		{"dataset too long", `{"records":[{"a":1}],"dataset":"` + strings.Repeat("x", 101) + `"}`, "", CodeStore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := stepInput(t, tt.input)
			out, err := StoreStep(context.Background(), in)
			if failsAs(t, err, tt.code) {
				assert.Empty(t, in.Effects.records)
				return
			}
			require.Len(t, in.Effects.records, 2)
			for i, r := range in.Effects.records {
				assert.Equal(t, tt.dataset, r.Dataset)
				assert.Equal(t, store.WorkflowRecordID(in.Workflow.ID, 2, i), r.ID)
			}
			assert.Equal(t, in.Records, out.Records)
		})
	}
}

func TestNotifyStartsOneEmailTaskKeyedByTheStep(t *testing.T) {
	tests := []struct {
		name, input, code string
	}{
		{"recipient given", `{"records":[{"a":1}],"notify":{"recipient":"ops@example.com"}}`, ""},
		{"no recipient", `{"records":[{"a":1}]}`, CodeNotify},
		{"not an address", `{"records":[{"a":1}],"notify":{"recipient":"ops"}}`, CodeNotify},
		{"negative retries", `{"records":[],"notify":{"recipient":"ops@example.com","maxRetries":-1}}`, CodeNotify},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := stepInput(t, tt.input)
			_, err := NotifyStep(context.Background(), in)
			if failsAs(t, err, tt.code) {
				return
			}
			require.Len(t, in.Effects.tasks, 1)
			require.Len(t, in.Effects.events, 1)
			task, created := in.Effects.tasks[0], in.Effects.events[0]
			assert.Equal(t, events.DeriveID(events.TaskIDPrefix, in.Workflow.ID, "notify", "2"), task.TaskID)
			assert.Equal(t, events.DeriveID(events.EventIDPrefix, task.TaskID, "task.created"), created.EventID)
			assert.Equal(t, created.EventID, task.EventID)
			assert.Equal(t, 3, task.MaxRetries)
			assert.Equal(t, "corr-1", created.Metadata.CorrelationID)
			raw, _ := json.Marshal(created)
			assert.NoError(t, events.Validate(raw))
		})
	}
}

func TestDeliverEnqueuesOneOutboxEntryPerTarget(t *testing.T) {
	tests := []struct {
		name, input, provider, target, code string
	}{
		{"explicit target", `{"records":[{"a":1}],"deliver":{"target":"acme","eventType":"order.synced"}}`, "", "acme", ""},
		{"the webhook's provider by default", `{"order":{"id":"o-1"}}`, "stripe", "stripe", ""},
		{"no target", `{"records":[{"a":1}]}`, "", "", CodeDeliver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := stepInput(t, tt.input)
			in.Workflow.Provider = tt.provider
			_, err := DeliverStep(context.Background(), in)
			if failsAs(t, err, tt.code) {
				return
			}
			require.Len(t, in.Effects.outbox, 1)
			e := in.Effects.outbox[0]
			assert.Equal(t, tt.target, e.TargetProvider)
			assert.Equal(t, store.OutboxID(stepEventID(in.Workflow.ID, events.WorkflowStepCompleted, 2), tt.target), e.OutboxID)
			assert.Contains(t, string(e.Payload), `"records":[`)
		})
	}
}

func TestBuiltinStepsAreTheCatalogSteps(t *testing.T) {
	assert.Equal(t, slices.Sorted(slices.Values(events.Steps)), BuiltinSteps().Names())
}

func TestStepErrorsAreRetryableOnlyWhenMarked(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"a step failure", fault.Permanent(CodeTransform, "bad"), false},
		{"a plain error", errors.New("boom"), false},
		{"marked transient", fault.Transient(errors.New("unreachable")), true},
		{"the deadline", ErrDeadline, true},
		{"the invocation ended", context.DeadlineExceeded, true},
		{"the invocation was cancelled", context.Canceled, true},
		{"a failure wrapping the invocation's end", fault.Permanent(CodeNotify, "send: %w", context.DeadlineExceeded), true},
		{"an unmarked network error", &net.OpError{Op: "dial", Err: errors.New("refused")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, fault.IsRetryable(classify(tt.err))) })
	}
}

func TestStepFailureReportsCodeMessageAndCause(t *testing.T) {
	code, msg, stack := stepFailure("geo-lookup", 3, "wf-1", errors.New("quota exceeded"))
	assert.Equal(t, "GEO_LOOKUP_ERROR", code, "an untyped error gets <STEP>_ERROR")
	assert.Equal(t, "quota exceeded", msg)
	assert.Contains(t, stack, "at step geo-lookup (index 3) of workflow wf-1")
}
