package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adotLayerInRegion is the pinned collector layer's ARN in region.
func adotLayerInRegion(region string) string {
	return "arn:aws:lambda:" + region + ":901920570463:layer:" + adotLayerName + ":2"
}

func TestTracingContextIsRead(t *testing.T) {
	tests := map[string]struct {
		ctx   map[string]any
		on    bool
		ratio float64
		arn   string
	}{
		"absent: off, 5%":      {ctx: map[string]any{}, ratio: defaultTraceSampleRatio},
		"-c tracing=true":      {ctx: map[string]any{ctxTracing: "true"}, on: true, ratio: defaultTraceSampleRatio},
		"cdk.json true":        {ctx: map[string]any{ctxTracing: true}, on: true, ratio: defaultTraceSampleRatio},
		"-c tracing=false":     {ctx: map[string]any{ctxTracing: "false"}, ratio: defaultTraceSampleRatio},
		"-c tracing=1":         {ctx: map[string]any{ctxTracing: "1"}, on: true, ratio: defaultTraceSampleRatio},
		"ratio string":         {ctx: map[string]any{ctxTracing: "true", ctxTraceSampleRatio: "0.25"}, on: true, ratio: 0.25},
		"ratio number":         {ctx: map[string]any{ctxTraceSampleRatio: 0.5}, ratio: 0.5},
		"ratio 0 is not unset": {ctx: map[string]any{ctxTraceSampleRatio: "0"}, ratio: 0},
		"ratio 1":              {ctx: map[string]any{ctxTraceSampleRatio: 1.0}, ratio: 1},
		"layer override": {ctx: map[string]any{ctxAdotLayerArn: "arn:aws:lambda:ap-east-1:123456789012:layer:my-collector:7"},
			ratio: defaultTraceSampleRatio, arn: "arn:aws:lambda:ap-east-1:123456789012:layer:my-collector:7"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := cdkJSONContext(t)
			for k, v := range tc.ctx {
				ctx[k] = v
			}
			cfg, err := configFrom(t, ctx)
			require.NoError(t, err)
			assert.Equal(t, tc.on, cfg.Tracing)
			assert.Equal(t, tc.ratio, cfg.TraceSampleRatio)
			assert.Equal(t, tc.arn, cfg.AdotLayerArn)
		})
	}
}

func TestBadTracingContextIsRefusedByName(t *testing.T) {
	tests := map[string]struct {
		key   string
		value any
		want  string
	}{
		"ratio -1":         {ctxTraceSampleRatio, -1.0, "-1 is not a number from 0 to 1"},
		"ratio 2":          {ctxTraceSampleRatio, "2", "2 is not a number from 0 to 1"},
		"ratio abc":        {ctxTraceSampleRatio, "abc", `"abc" is not a number from 0 to 1`},
		"ratio NaN":        {ctxTraceSampleRatio, "NaN", "NaN is not a number from 0 to 1"},
		"ratio percent":    {ctxTraceSampleRatio, "5%", `"5%" is not a number from 0 to 1`},
		"ratio bool":       {ctxTraceSampleRatio, true, "is not a number from 0 to 1"},
		"tracing typo":     {ctxTracing, "ture", "ture is not true or false"},
		"tracing yes":      {ctxTracing, "yes", "yes is not true or false"},
		"layer not arn":    {ctxAdotLayerArn, "aws-otel-collector-arm64-ver-0-115-0", "want a layer version ARN"},
		"layer no version": {ctxAdotLayerArn, "arn:aws:lambda:eu-west-1:901920570463:layer:aws-otel-collector-arm64-ver-0-115-0", "want a layer version ARN"},
		"layer a function": {ctxAdotLayerArn, "arn:aws:lambda:eu-west-1:123456789012:function:collector", "want a layer version ARN"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := cdkJSONContext(t)
			ctx[ctxTracing] = "true"
			ctx[tc.key] = tc.value
			_, err := configFrom(t, ctx)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "context "+tc.key+": ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestTracingOffLeavesTheTemplateUnchanged: tracing=false, whatever the
// other two keys say, synthesizes the very template of a context without
// them, and that template has nothing of tracing in it.
func TestTracingOffLeavesTheTemplateUnchanged(t *testing.T) {
	_, plain := stackTemplate(t)
	off, err := synth(map[string]any{
		ctxTracing:          "false",
		ctxTraceSampleRatio: "0.5",
		ctxAdotLayerArn:     "arn:aws:lambda:eu-west-1:123456789012:layer:my-collector:7",
	})
	require.NoError(t, err)
	for _, section := range []string{"Resources", "Mappings", "Conditions", "Outputs", "Parameters"} {
		a, _ := plain[section].(map[string]any)
		b, _ := off.json[section].(map[string]any)
		for id := range a {
			if !reflect.DeepEqual(a[id], b[id]) {
				got, _ := json.MarshalIndent(b[id], "", " ")
				t.Errorf("tracing=false changes %s %s:\n%s", section, id, got)
			}
		}
		for id := range b {
			if _, ok := a[id]; !ok {
				t.Errorf("tracing=false adds %s %s", section, id)
			}
		}
	}
	assert.Equal(t, len(plain), len(off.json), "template sections")
	text, err := json.Marshal(plain)
	require.NoError(t, err)
	for _, s := range []string{"901920570463", "aws-otel-collector", envTracing, envOTLPEndpoint, envTraceSampleRatio, "TracingConfig", "xray:"} {
		assert.NotContains(t, string(text), s, "tracing off")
	}
	for _, name := range append(append([]string{}, functionNames...), fnKafkaTopics) {
		stmts, _ := roleStatements(t, plain, name)
		assert.False(t, canRead(stmts, "xray:PutTraceSegments", "*"), "%s may write to X-Ray with tracing off", name)
	}
}

// TestTracingOnGivesEveryFunctionTheCollector checks each of the seven
// functions for the layer, the variables, Lambda's PassThrough mode and
// the X-Ray grant, and the topics function for none of them, with the
// pinned layer, an override, and next to the configuration layer.
func TestTracingOnGivesEveryFunctionTheCollector(t *testing.T) {
	providers := filepath.Join(t.TempDir(), "providers.json")
	require.NoError(t, os.WriteFile(providers, []byte(`[]`), 0o600))
	override := "arn:aws:lambda:ap-east-1:123456789012:layer:my-collector:7"
	tests := map[string]struct {
		ctx   map[string]any
		layer string
		ratio string
	}{
		"pinned layer, default ratio": {
			ctx:   map[string]any{ctxTracing: "true"},
			layer: adotLayerInRegion(testRegion), ratio: "0.05",
		},
		"override and ratio": {
			ctx:   map[string]any{ctxTracing: true, ctxTraceSampleRatio: "0.25", ctxAdotLayerArn: override},
			layer: override, ratio: "0.25",
		},
		"with the configuration layer, ratio 1": {
			ctx:   map[string]any{ctxTracing: "true", ctxTraceSampleRatio: 1.0, ctxProvidersFile: providers},
			layer: adotLayerInRegion(testRegion), ratio: "1",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := synth(tc.ctx)
			require.NoError(t, err)
			fns := resources(s.json, "AWS::Lambda::Function")
			for _, fn := range functionNames {
				p := props(fns[functionID(t, s.json, fn)])
				var layers []string
				for _, l := range asList(p["Layers"]) {
					layers = append(layers, render(l))
				}
				assert.Contains(t, layers, tc.layer, "%s: layers", fn)
				if _, ok := tc.ctx[ctxProvidersFile]; ok && (fn == fnWebhook || fn == fnAPI || fn == fnRetrySweeper) {
					assert.Len(t, layers, 2, "%s: the configuration layer and the collector", fn)
				}
				vars := p["Environment"].(map[string]any)["Variables"].(map[string]any)
				assert.Equal(t, "true", vars[envTracing], "%s: %s", fn, envTracing)
				assert.Equal(t, "http://localhost:4318", vars[envOTLPEndpoint], "%s: %s", fn, envOTLPEndpoint)
				assert.Equal(t, tc.ratio, vars[envTraceSampleRatio], "%s: %s", fn, envTraceSampleRatio)
				_, custom := vars["OPENTELEMETRY_COLLECTOR_CONFIG_URI"]
				assert.False(t, custom, "%s: the layer's default collector configuration is the one used", fn)
				assert.Equal(t, map[string]any{"Mode": "PassThrough"}, p["TracingConfig"], "%s: TracingConfig", fn)
				stmts, _ := roleStatements(t, s.json, fn)
				for _, action := range []string{"xray:PutTraceSegments", "xray:PutTelemetryRecords"} {
					assert.True(t, canRead(stmts, action, "*"), "%s: %s", fn, action)
				}
			}
			topics := props(fns[functionID(t, s.json, fnKafkaTopics)])
			assert.Nil(t, topics["Layers"], "kafka-topics: layers")
			assert.Nil(t, topics["TracingConfig"], "kafka-topics: TracingConfig")
			assert.NotContains(t, topics["Environment"].(map[string]any)["Variables"], envTracing)
			stmts, _ := roleStatements(t, s.json, fnKafkaTopics)
			assert.False(t, canRead(stmts, "xray:PutTraceSegments", "*"), "kafka-topics may write to X-Ray")
			assert.Empty(t, s.findings, "cdk-nag with tracing on")
		})
	}
}

// TestTracingSuppressionSaysWhichModeIsDeployed: the reason cdk-nag's
// Serverless-LambdaTracing is suppressed with describes the stack as
// synthesized.
func TestTracingSuppressionSaysWhichModeIsDeployed(t *testing.T) {
	_, off := stackTemplate(t)
	on, err := synth(map[string]any{ctxTracing: "true"})
	require.NoError(t, err)
	for _, tc := range []struct {
		tmpl map[string]any
		want string
	}{{off, lambdaTracingOff}, {on.json, lambdaTracingOn}} {
		for _, fn := range functionNames {
			assert.Equal(t, tc.want, tracingSuppression(t, tc.tmpl, fn), fn)
		}
		assert.Equal(t, lambdaTracingTopics, tracingSuppression(t, tc.tmpl, fnKafkaTopics))
	}
}

// tracingSuppression is the reason recorded in function name's metadata
// for Serverless-LambdaTracing.
func tracingSuppression(t *testing.T, tmpl map[string]any, name string) string {
	t.Helper()
	res := resources(tmpl, "AWS::Lambda::Function")[functionID(t, tmpl, name)]
	meta, _ := res["Metadata"].(map[string]any)
	nag, _ := meta["cdk_nag"].(map[string]any)
	for _, r := range asList(nag["rules_to_suppress"]) {
		rule := r.(map[string]any)
		if rule["id"] == "Serverless-LambdaTracing" {
			return strings.TrimSpace(rule["reason"].(string))
		}
	}
	t.Fatalf("%s: no Serverless-LambdaTracing suppression in %v", name, meta)
	return ""
}
