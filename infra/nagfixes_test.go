package main

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/aws/jsii-runtime-go"
)

// The real findings cdk-nag (and the issue) pointed at, fixed rather than
// suppressed.

func TestNoSecretValueIsResolvedIntoTheTemplate(t *testing.T) {
	_, raw := stackTemplate(t)
	b, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "resolve:secretsmanager") {
		t.Error("the template resolves a secret: its value would be in a function's configuration, readable with lambda:GetFunctionConfiguration")
	}
	for _, name := range functionNames {
		vars := props(resources(raw, "AWS::Lambda::Function")[functionID(t, raw, name)])["Environment"].(map[string]any)["Variables"].(map[string]any)
		if _, ok := vars[envMongoURI]; ok {
			t.Errorf("%s: %s is set; the functions read %s at cold start", name, envMongoURI, envMongoURISecret)
		}
		if vars[envMongoURISecret] != "streamops/mongodb-uri" {
			t.Errorf("%s: %s = %v", name, envMongoURISecret, vars[envMongoURISecret])
		}
	}
}

func TestArchiverFailedRunsGoToAnAlarmedQueue(t *testing.T) {
	_, raw := stackTemplate(t)
	fnID := functionID(t, raw, fnArchiver)
	queues := resources(raw, "AWS::SQS::Queue")
	found := false
	for _, c := range resources(raw, "AWS::Lambda::EventInvokeConfig") {
		p := props(c)
		if render(p["FunctionName"]) != "ref:"+fnID {
			continue
		}
		found = true
		dest, _ := p["DestinationConfig"].(map[string]any)
		if dest == nil {
			t.Fatal("archiver's asynchronous invocations have no on-failure destination")
		}
		arn := render(dest["OnFailure"].(map[string]any)["Destination"])
		q := strings.TrimSuffix(strings.TrimPrefix(arn, "getatt:"), ".Arn")
		if _, ok := queues[q]; !ok {
			t.Fatalf("on-failure destination %s is not an SQS queue of the stack", arn)
		}
		if p["MaximumRetryAttempts"] != float64(2) {
			t.Errorf("MaximumRetryAttempts = %v, want 2", p["MaximumRetryAttempts"])
		}
		alarmed := false
		for _, a := range resources(raw, "AWS::CloudWatch::Alarm") {
			for _, d := range asList(props(a)["Dimensions"]) {
				alarmed = alarmed || render(d.(map[string]any)["Value"]) == "getatt:"+q+".QueueName"
			}
		}
		if !alarmed {
			t.Errorf("no alarm watches the archiver's on-failure queue %s", q)
		}
		stmts, _ := roleStatements(t, raw, fnArchiver)
		if !canRead(stmts, "sqs:SendMessage", "getatt:"+q+".Arn") {
			t.Errorf("archiver cannot send to its on-failure queue")
		}
	}
	if !found {
		t.Fatal("archiver has no EventInvokeConfig")
	}
}

func TestExportsBucketGrantsExactlyTheCallsAndLogsAccess(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	bucket := onlyID(t, raw, "AWS::S3::Bucket", "Exports")
	logs := onlyID(t, raw, "AWS::S3::Bucket", "AccessLogs")
	want := map[string][]string{
		fnAPI:           {"s3:GetObject", "s3:PutObject"},
		fnTaskProcessor: {"s3:PutObject"},
	}
	for _, name := range functionNames {
		stmts, _ := roleStatements(t, raw, name)
		var got []string
		for _, s := range stmts {
			for _, r := range s.resources {
				if strings.Contains(r, bucket) || strings.Contains(r, logs) {
					got = append(got, s.actions...)
				}
			}
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(want[name], ",") {
			t.Errorf("%s: S3 actions on the buckets = %v, want %v", name, got, want[name])
		}
	}
	assertTemplate(t, "access log", func() {
		tmpl.HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj(map[string]any{
			"LoggingConfiguration": map[string]any{
				"DestinationBucketName": map[string]any{"Ref": logs},
				"LogFilePrefix":         "exports/",
			},
		}))
	})
	lb := resources(raw, "AWS::S3::Bucket")[logs]
	if lb["DeletionPolicy"] != "Retain" {
		t.Errorf("access log bucket DeletionPolicy = %v, want Retain", lb["DeletionPolicy"])
	}
	if pab, _ := props(lb)["PublicAccessBlockConfiguration"].(map[string]any); pab["RestrictPublicBuckets"] != true || pab["BlockPublicPolicy"] != true {
		t.Errorf("access log bucket is not private: %v", pab)
	}
}
