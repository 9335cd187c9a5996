package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

func TestKafkaTopicsResourceCreatesSeed003AndDeadLetterTopicsAndIsRetained(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	fnID := functionID(t, raw, fnKafkaTopics)
	assertTemplate(t, "Custom::KafkaTopics", func() {
		tmpl.ResourceCountIs(jsii.String("Custom::KafkaTopics"), jsii.Number(1))
		tmpl.HasResource(jsii.String("Custom::KafkaTopics"), obj(map[string]any{
			"Properties": map[string]any{
				"ServiceToken": getAtt(fnID, "Arn"),
				"Topics":       []any{"workflows", "tasks", "workflows.dlq", "tasks.dlq", "operations"},
				"Brokers":      testBrokers,
				"Partitions":   "workflows=3,tasks=3,operations=3",
			},
			// CloudFormation never sends Delete; the handler would leave
			// the topics anyway (internal/provision).
			"DeletionPolicy":      "Retain",
			"UpdateReplacePolicy": "Retain",
		}))
	})
	assertTemplate(t, "topics function", func() {
		tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj(map[string]any{
			"Description":   assertions.Match_StringLikeRegexp(jsii.String("^StreamOps kafka-topics: ")),
			"Architectures": []any{"arm64"},
			"Runtime":       "provided.al2023",
			"Environment": map[string]any{"Variables": obj(map[string]any{
				envKafkaBrokers:   testBrokers,
				envKafkaAuth:      kafkaAuthIAM,
				envMongoURISecret: assertions.Match_Absent(),
			})},
			"VpcConfig": map[string]any{"SubnetIds": testSubnets, "SecurityGroupIds": []any{testSecurityGroup}},
		}))
	})
	stmts, _ := roleStatements(t, raw, fnKafkaTopics)
	if !canRead(stmts, "kafka-cluster:Connect", testClusterArn) {
		t.Error("the topics function cannot connect to the cluster")
	}
	for _, topic := range topicNames() {
		arn := clusterResourceArn(testClusterArn, "topic", topic)
		if !canRead(stmts, "kafka-cluster:CreateTopic", arn) {
			t.Errorf("cannot create %s", topic)
		}
		if !canRead(stmts, "kafka-cluster:AlterTopic", arn) {
			t.Errorf("cannot add partitions to %s (CreatePartitions needs AlterTopic)", topic)
		}
		for _, action := range []string{"kafka-cluster:DeleteTopic", "kafka-cluster:WriteData", "kafka-cluster:ReadData"} {
			if canRead(stmts, action, arn) {
				t.Errorf("may %s on %s; it only creates topics and adds partitions", action, topic)
			}
		}
	}
	if canRead(stmts, "kafka-cluster:CreateTopic", clusterResourceArn(testClusterArn, "topic", "other")) {
		t.Error("may create topics other than StreamOps'")
	}
	// The mappings wait for the topics.
	topicsID := onlyID(t, raw, "Custom::KafkaTopics", "Topics")
	for id, m := range resources(raw, "AWS::Lambda::EventSourceMapping") {
		deps := asList(m["DependsOn"])
		found := false
		for _, d := range deps {
			found = found || render(d) == topicsID
		}
		if !found {
			t.Errorf("mapping %s does not depend on the topics resource (DependsOn %v)", id, deps)
		}
	}
}

func TestNoConfigLayerWithoutFiles(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	assertTemplate(t, "no layer", func() {
		tmpl.ResourceCountIs(jsii.String("AWS::Lambda::LayerVersion"), jsii.Number(0))
	})
	for _, name := range functionNames {
		p := props(resources(raw, "AWS::Lambda::Function")[functionID(t, raw, name)])
		if p["Layers"] != nil {
			t.Errorf("%s has layers %v", name, p["Layers"])
		}
		vars := p["Environment"].(map[string]any)["Variables"].(map[string]any)
		for _, v := range []string{envProvidersFile, envPartnersFile, envMongoTLSCAFile} {
			if _, ok := vars[v]; ok {
				t.Errorf("%s: %s is set without its file: the embedded default must apply", name, v)
			}
		}
	}
}

func TestConfigLayerShipsTheFilesUnderOptAndOnlyTheirReadersGetIt(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"providers.json": []byte(`[{"name":"stripe"}]`),
		"partners.json":  []byte(`[{"id":"acme","name":"Acme Corp","url":"https://acme.example/hooks"}]`),
		"ca.pem":         []byte("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIBATAKBggqhkjOPQQDAjAS\n-----END CERTIFICATE-----\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := synth(map[string]any{
		ctxProvidersFile: filepath.Join(dir, "providers.json"),
		ctxPartnersFile:  filepath.Join(dir, "partners.json"),
		ctxMongoCAFile:   filepath.Join(dir, "ca.pem"),
	})
	if err != nil {
		t.Fatal(err)
	}
	layers := resources(s.json, "AWS::Lambda::LayerVersion")
	if len(layers) != 1 {
		t.Fatalf("layers: %v, want one", layers)
	}
	var layerID string
	for id, l := range layers {
		layerID = id
		p := props(l)
		if got := asList(p["CompatibleArchitectures"]); len(got) != 1 || got[0] != "arm64" {
			t.Errorf("CompatibleArchitectures = %v, want [arm64]", got)
		}
	}
	want := map[string]map[string]string{
		fnWebhook:           {envProvidersFile: "/opt/streamops/providers.json"},
		fnAPI:               {envProvidersFile: "/opt/streamops/providers.json", envPartnersFile: "/opt/streamops/partners.json"},
		fnRetrySweeper:      {envProvidersFile: "/opt/streamops/providers.json"},
		fnOutboxRelay:       {envPartnersFile: "/opt/streamops/partners.json"},
		fnWorkflowProcessor: {},
		fnTaskProcessor:     {},
		fnArchiver:          {},
	}
	for _, name := range functionNames {
		want[name][envMongoTLSCAFile] = "/opt/streamops/mongodb-ca.pem"
		p := props(resources(s.json, "AWS::Lambda::Function")[functionID(t, s.json, name)])
		if got := asList(p["Layers"]); len(got) != 1 || render(got[0]) != "ref:"+layerID {
			t.Errorf("%s: Layers = %v, want [ref:%s]", name, got, layerID)
		}
		vars := p["Environment"].(map[string]any)["Variables"].(map[string]any)
		for _, v := range []string{envProvidersFile, envPartnersFile, envMongoTLSCAFile} {
			got, _ := vars[v].(string)
			if got != want[name][v] {
				t.Errorf("%s: %s = %q, want %q", name, v, got, want[name][v])
			}
		}
	}
	// The staged asset is what Lambda mounts at /opt.
	for local, inLayer := range map[string]string{"providers.json": "providers.json", "partners.json": "partners.json", "ca.pem": "mongodb-ca.pem"} {
		matches, _ := filepath.Glob(filepath.Join(s.outdir, "asset.*", "streamops", inLayer))
		if len(matches) != 1 {
			t.Errorf("layer asset: %s found %v, want one", inLayer, matches)
			continue
		}
		if got, _ := os.ReadFile(matches[0]); !bytes.Equal(got, files[local]) {
			t.Errorf("layer asset %s differs from %s", inLayer, local)
		}
	}
	if len(s.findings) > 0 {
		t.Errorf("cdk-nag findings with the layer: %v", s.findings)
	}
}

func TestOneFileGivesOnlyItsReadersTheLayer(t *testing.T) {
	tests := []struct {
		context string
		readers []string
	}{
		{ctxProvidersFile, []string{fnWebhook, fnAPI, fnRetrySweeper}},
		{ctxPartnersFile, []string{fnOutboxRelay, fnAPI}}, // api shows the partners (GET /api/partners)
	}
	for _, tc := range tests {
		t.Run(tc.context, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte(`[]`), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := synth(map[string]any{tc.context: path})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range functionNames {
				p := props(resources(s.json, "AWS::Lambda::Function")[functionID(t, s.json, name)])
				reads := slices.Contains(tc.readers, name)
				if got := p["Layers"] != nil; got != reads {
					t.Errorf("%s: has the layer = %v, want %v", name, got, reads)
				}
				vars := p["Environment"].(map[string]any)["Variables"].(map[string]any)
				if _, ok := vars[envMongoTLSCAFile]; ok {
					t.Errorf("%s: %s set without mongoCaFile", name, envMongoTLSCAFile)
				}
			}
		})
	}
}
