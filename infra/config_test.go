package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
)

// cdkJSONContext is the context block of the repository's cdk.json.
func cdkJSONContext(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../cdk.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Context
}

// configFrom reads a Config from an app with context ctx, recovering a jsii
// panic into a test failure.
func configFrom(t *testing.T, ctx map[string]any) (cfg Config, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("reading context: %v", r)
		}
	}()
	return configFromContext(awscdk.NewApp(&awscdk.AppProps{Context: &ctx}))
}

func TestCdkJSONPlaceholdersSynthButDoNotDeploy(t *testing.T) {
	ctx := cdkJSONContext(t)
	if _, err := configFrom(t, ctx); err != nil {
		t.Fatalf("cdk.json context does not synthesize: %v", err)
	}
	ctx[ctxRequireRealContext] = "true"
	_, err := configFrom(t, ctx)
	if err == nil {
		t.Fatal("make deploy would accept cdk.json's placeholders")
	}
	for key := range (Config{}).contextValues() {
		if !strings.Contains(err.Error(), "context "+key+":") {
			t.Errorf("deploy error does not name %s:\n%v", key, err)
		}
	}
}

func TestMissingContextIsNamed(t *testing.T) {
	_, err := configFrom(t, map[string]any{})
	if err == nil {
		t.Fatal("empty context accepted")
	}
	for _, key := range []string{ctxMSKClusterArn, ctxKafkaBrokers, ctxVpcID, ctxSubnetIDs, ctxSecurityGroupID,
		ctxJWTIssuer, ctxJWTAudience, ctxAlarmTopicArn, ctxEmailSender} {
		if !strings.Contains(err.Error(), "context "+key+":") {
			t.Errorf("error does not name %s:\n%v", key, err)
		}
	}
}

func TestCommandLineListsAreCommaSeparated(t *testing.T) {
	ctx := cdkJSONContext(t)
	// -c key=value always passes strings.
	ctx[ctxSubnetIDs] = "subnet-a, subnet-b"
	ctx[ctxJWTAudience] = "aud-1"
	ctx[ctxLogRetentionDays] = "90"
	cfg, err := configFrom(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.SubnetIDs, "|"); got != "subnet-a|subnet-b" {
		t.Errorf("SubnetIDs = %q", got)
	}
	if got := strings.Join(cfg.JWTAudience, "|"); got != "aud-1" {
		t.Errorf("JWTAudience = %q", got)
	}
	if cfg.LogRetentionDays != 90 {
		t.Errorf("LogRetentionDays = %d", cfg.LogRetentionDays)
	}
}

func TestValidateRejectsBadValues(t *testing.T) {
	base := cdkJSONContext(t)
	tests := []struct {
		key   string
		value any
	}{
		{ctxMSKClusterArn, "arn:aws:kafka:us-east-1:000000000000:topic/x/y/z"},
		{ctxAlarmTopicArn, "not-an-arn"},
		{ctxJWTIssuer, "http://insecure.example/"},
		{ctxLogLevel, "verbose"},
		{ctxLogRetentionDays, 31},
		{ctxOutboxAgeAlarm, 30},
		{ctxPartners, []any{"bad/name"}},
		{ctxEmailSender, "not an address"},
		{ctxExportRetention, -1},
		{ctxEventsTTL, "90"},
		{ctxEventsTTL, "30m"},
		{ctxEventsTTL, 90},
		{ctxWebhookEventsTTL, "1.5d"},
		{ctxWebhookEventsTTL, "-2d"},
		{ctxOutboxTTL, "permanent"},
		{ctxWorkflowsTTL, "30m"},
		{ctxTasksTTL, "0"},
		{ctxDeadLettersTTL, "1.5d"},
		{ctxReplaySessionsTTL, 90},
		{ctxArchiveTTL, "forever"},
		{ctxArchiveTTL, "30000d"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			ctx := map[string]any{}
			for k, v := range base {
				ctx[k] = v
			}
			ctx[tt.key] = tt.value
			if _, err := configFrom(t, ctx); err == nil || !strings.Contains(err.Error(), tt.key) {
				t.Errorf("%s = %v: err = %v, want one naming the key", tt.key, tt.value, err)
			}
		})
	}
}

func TestMongoURIVersionIsPassedAsTheSecretVersionNotResolved(t *testing.T) {
	ctx := cdkJSONContext(t)
	ctx[ctxMongoURIVersionID] = "0d1e2f3a-4b5c-6d7e-8f90-a1b2c3d4e5f6"
	cfg, err := configFrom(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	env := functionEnvironment(cfg, functionSpecs()[0], configLayer{})
	if got := *env[envMongoURISecret]; got != "streamops/mongodb-uri" {
		t.Errorf("%s = %s, want the secret's name", envMongoURISecret, got)
	}
	if got := *env[envMongoURISecretVersion]; got != "0d1e2f3a-4b5c-6d7e-8f90-a1b2c3d4e5f6" {
		t.Errorf("%s = %s, want the pinned version", envMongoURISecretVersion, got)
	}
	if _, ok := env[envMongoURI]; ok {
		t.Errorf("%s is set: the URI must not be in the function's configuration", envMongoURI)
	}
}

func TestLayerFilesMustExist(t *testing.T) {
	for _, key := range []string{ctxProvidersFile, ctxPartnersFile, ctxMongoCAFile} {
		ctx := cdkJSONContext(t)
		ctx[key] = "no/such/file.json"
		if _, err := configFrom(t, ctx); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s = a missing file: err = %v, want one naming the key", key, err)
		}
	}
}

// TestRetentionContextReachesEveryFunction: each retention context key
// (eventsTtl, webhookEventsTtl, outboxTtl, workflowsTtl, tasksTtl,
// deadLettersTtl, replaySessionsTtl, archiveTtl) becomes its
// STREAMOPS_*_TTL variable of every function, which validate them again
// at start; archiveTtl may be permanent.
func TestRetentionContextReachesEveryFunction(t *testing.T) {
	want := map[string]string{
		envEventsTTL: "30d", envWebhookEventsTTL: "2160h", envOutboxTTL: "7d", envWorkflowsTTL: "60d",
		envTasksTTL: "48h", envDeadLettersTTL: "180d", envReplaySessionsTTL: "1h", envArchiveTTL: "permanent",
	}
	ctx := cdkJSONContext(t)
	var c Config
	for _, r := range c.retentions() {
		ctx[r.key] = want[r.env]
	}
	cfg, err := configFrom(t, ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range functionSpecs() {
		env := functionEnvironment(cfg, spec, configLayer{})
		for name, v := range want {
			if got := env[name]; got == nil || *got != v {
				t.Errorf("%s: %s = %v, want %s", spec.name, name, got, v)
			}
		}
	}
}
