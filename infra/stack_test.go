package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// obj is a CDK assertions ObjectLike pattern.
func obj(m map[string]any) assertions.Matcher { return assertions.Match_ObjectLike(&m) }

// getAtt is {"Fn::GetAtt": [id, attr]}.
func getAtt(id any, attr string) map[string]any { return map[string]any{"Fn::GetAtt": []any{id, attr}} }

func TestStackHasSevenFunctionsOnArm64ProvidedAL2023(t *testing.T) {
	tmpl, _ := stackTemplate(t)
	assertTemplate(t, "function count (the seven and the topics resource's)", func() {
		tmpl.ResourceCountIs(jsii.String("AWS::Lambda::Function"), jsii.Number(len(assetNames)))
	})
	for _, name := range functionNames {
		t.Run(name, func(t *testing.T) {
			assertTemplate(t, name, func() {
				tmpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), obj(map[string]any{
					"Description":   assertions.Match_StringLikeRegexp(jsii.String("^StreamOps " + name + ": ")),
					"Architectures": []any{"arm64"},
					"Runtime":       "provided.al2023",
					"Handler":       "bootstrap",
					"Environment": obj(map[string]any{"Variables": obj(map[string]any{
						envMongoURI:          assertions.Match_Absent(),
						envMongoURISecret:    "streamops/mongodb-uri",
						envMongoDatabase:     "streamops",
						envKafkaBrokers:      testBrokers,
						envKafkaAuth:         kafkaAuthIAM,
						envLogLevel:          "info",
						envEventsTTL:         "90d",
						envWebhookEventsTTL:  "90d",
						envOutboxTTL:         "90d",
						envWorkflowsTTL:      "90d",
						envTasksTTL:          "90d",
						envDeadLettersTTL:    "90d",
						envReplaySessionsTTL: "90d",
						envArchiveTTL:        "365d",
					})}),
					"VpcConfig": map[string]any{
						"SubnetIds":        testSubnets,
						"SecurityGroupIds": []any{testSecurityGroup},
					},
				}))
			})
		})
	}
}

func TestFunctionTimeoutsFitTheirTriggers(t *testing.T) {
	_, tmpl := stackTemplate(t)
	functions := resources(tmpl, "AWS::Lambda::Function")
	tests := []struct {
		name string
		// below is the trigger's limit the timeout must stay under.
		below float64
		why   string
	}{
		{fnWebhook, 30, "API Gateway ends an HTTP API integration at 30 s"},
		{fnAPI, 30, "API Gateway ends an HTTP API integration at 30 s"},
		{fnOutboxRelay, 120, "a run serves one period and settles its batch in flight, under two periods"},
		{fnRetrySweeper, 60, "a run must end before the next one-minute tick"},
		{fnWorkflowProcessor, 901, "Lambda's limit"},
		{fnTaskProcessor, 901, "Lambda's limit"},
		{fnArchiver, 901, "Lambda's limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := props(functions[functionID(t, tmpl, tt.name)])
			if timeout, _ := p["Timeout"].(float64); timeout <= 0 || timeout >= tt.below {
				t.Errorf("Timeout = %v s, want under %v s: %s", p["Timeout"], tt.below, tt.why)
			}
			if timeout, _ := p["Timeout"].(float64); tt.name == fnOutboxRelay && timeout != (schedulePeriod+relaySettleMargin).Seconds() {
				t.Errorf("Timeout = %v s, want the schedule's period plus the settle margin: the run serves the whole period", timeout)
			}
			if _, ok := p["MemorySize"].(float64); !ok {
				t.Errorf("MemorySize unset: every role chooses its own")
			}
		})
	}
}

func TestOnlyOutboxRelayHasReservedConcurrency(t *testing.T) {
	_, tmpl := stackTemplate(t)
	functions := resources(tmpl, "AWS::Lambda::Function")
	for _, name := range functionNames {
		got := props(functions[functionID(t, tmpl, name)])["ReservedConcurrentExecutions"]
		switch {
		case name == fnOutboxRelay && got != float64(1):
			t.Errorf("%s: ReservedConcurrentExecutions = %v, want 1 so runs never overlap", name, got)
		case name != fnOutboxRelay && got != nil:
			t.Errorf("%s: ReservedConcurrentExecutions = %v, want unreserved", name, got)
		}
	}
}

func TestFunctionSpecificEnvironment(t *testing.T) {
	_, tmpl := stackTemplate(t)
	functions := resources(tmpl, "AWS::Lambda::Function")
	bucket := "ref:" + onlyID(t, tmpl, "AWS::S3::Bucket", "Exports")
	// Each variable is set on exactly the functions listed, to the value.
	tests := []struct {
		variable string
		value    string
		on       []string
	}{
		{envWebhookSecrets, secretPrefixWebhook, []string{fnWebhook}},
		{envPartnerSecrets, secretPrefixPartner, []string{fnAPI, fnOutboxRelay}},
		{envSchedulePeriod, "1m0s", []string{fnOutboxRelay}},
		{envEmailSender, testEmailSender, []string{fnTaskProcessor}},
		{envExportBucket, bucket, []string{fnTaskProcessor, fnAPI}},
		{envPIIKMSKeyARN, "getatt:" + onlyID(t, tmpl, "AWS::KMS::Key", "PersonalDataKey") + ".Arn",
			[]string{fnWebhook, fnAPI, fnWorkflowProcessor, fnTaskProcessor, fnOutboxRelay}},
		{envPIIIndexSecretARN, "ref:" + onlyID(t, tmpl, "AWS::SecretsManager::Secret", "PersonalDataIndexKey"),
			[]string{fnWebhook, fnAPI, fnWorkflowProcessor, fnTaskProcessor}},
	}
	for _, tt := range tests {
		t.Run(tt.variable, func(t *testing.T) {
			for _, name := range functionNames {
				vars := props(functions[functionID(t, tmpl, name)])["Environment"].(map[string]any)["Variables"].(map[string]any)
				v, set := vars[tt.variable]
				want := false
				for _, on := range tt.on {
					want = want || on == name
				}
				switch {
				case want && render(v) != tt.value:
					t.Errorf("%s: %s = %v, want %s", name, tt.variable, render(v), tt.value)
				case !want && set:
					t.Errorf("%s: has %s, which only %v need", name, tt.variable, tt.on)
				}
			}
		})
	}
}

func TestExportsBucketIsPrivateAndOnlyItsUsersWrite(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	assertTemplate(t, "exports bucket", func() {
		tmpl.HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj(map[string]any{
			"PublicAccessBlockConfiguration": map[string]any{
				"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
			},
			"LifecycleConfiguration": obj(map[string]any{"Rules": assertions.Match_ArrayWith(&[]any{
				obj(map[string]any{"ExpirationInDays": 30, "Status": "Enabled"}),
			})}),
		}))
	})
	object := "getatt:" + onlyID(t, raw, "AWS::S3::Bucket", "Exports") + ".Arn/export-1.json"
	for _, name := range functionNames {
		stmts, _ := roleStatements(t, raw, name)
		want := name == fnTaskProcessor || name == fnAPI
		if got := canRead(stmts, "s3:PutObject", object); got != want {
			t.Errorf("%s: may put exports = %v, want %v", name, got, want)
		}
	}
}

func TestOnlyTaskProcessorSendsEmailAsTheSender(t *testing.T) {
	_, raw := stackTemplate(t)
	identity := "arn:aws:ses:" + testRegion + ":" + testAccount + ":identity/"
	for _, name := range functionNames {
		stmts, _ := roleStatements(t, raw, name)
		want := name == fnTaskProcessor
		if got := canRead(stmts, "ses:SendEmail", identity+"mail.streamops.test"); got != want {
			t.Errorf("%s: may send as the sender's domain = %v, want %v", name, got, want)
		}
		if got := canRead(stmts, "ses:SendEmail", identity+"noreply@mail.streamops.test"); got != want {
			t.Errorf("%s: may send as the sender's address = %v, want %v", name, got, want)
		}
		if canRead(stmts, "ses:SendEmail", identity+"other.example") {
			t.Errorf("%s: may send as any identity", name)
		}
	}
}

func TestEveryFunctionLogsToARetainedLogGroup(t *testing.T) {
	_, tmpl := stackTemplate(t)
	functions := resources(tmpl, "AWS::Lambda::Function")
	groups := resources(tmpl, "AWS::Logs::LogGroup")
	for _, name := range functionNames {
		ref := render(props(functions[functionID(t, tmpl, name)])["LoggingConfig"].(map[string]any)["LogGroup"])
		group, ok := groups[strings.TrimPrefix(ref, "ref:")]
		if !ok {
			t.Errorf("%s: LoggingConfig.LogGroup = %s, not a log group of the stack", name, ref)
			continue
		}
		if got := props(group)["RetentionInDays"]; got != float64(30) {
			t.Errorf("%s: log retention = %v days, want 30", name, got)
		}
		if group["DeletionPolicy"] != "Retain" {
			t.Errorf("%s: log group DeletionPolicy = %v, want Retain", name, group["DeletionPolicy"])
		}
	}
}

func TestRoutes(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	tests := []struct {
		routeKey string
		function string
		auth     string
	}{
		{"POST /webhooks/{provider}", fnWebhook, "NONE"},
		{"ANY /api/{proxy+}", fnAPI, "JWT"},
		// The console's static files: public, served by the api function.
		{"GET /console", fnAPI, "NONE"},
		{"GET /console/{proxy+}", fnAPI, "NONE"},
	}
	assertTemplate(t, "route count", func() {
		tmpl.ResourceCountIs(jsii.String("AWS::ApiGatewayV2::Route"), jsii.Number(len(tests)))
	})
	routes := resources(raw, "AWS::ApiGatewayV2::Route")
	integrations := resources(raw, "AWS::ApiGatewayV2::Integration")
	for _, tt := range tests {
		t.Run(tt.routeKey, func(t *testing.T) {
			assertTemplate(t, tt.routeKey, func() {
				tmpl.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Route"), obj(map[string]any{
					"RouteKey":          tt.routeKey,
					"AuthorizationType": tt.auth,
				}))
			})
			for _, r := range routes {
				if props(r)["RouteKey"] != tt.routeKey {
					continue
				}
				integration := strings.TrimPrefix(render(props(r)["Target"]), "integrations/ref:")
				uri := render(props(integrations[integration])["IntegrationUri"])
				if want := "getatt:" + functionID(t, raw, tt.function) + ".Arn"; uri != want {
					t.Errorf("integration target = %s, want %s (%s)", uri, want, tt.function)
				}
			}
			// API Gateway may invoke the function for this route.
			path := strings.SplitN(tt.routeKey, " ", 2)[1]
			allowed := false
			for _, p := range resources(raw, "AWS::Lambda::Permission") {
				pp := props(p)
				if strings.HasSuffix(render(pp["SourceArn"]), "/*/*"+path) &&
					strings.Contains(render(pp["FunctionName"]), functionID(t, raw, tt.function)) &&
					pp["Principal"] == "apigateway.amazonaws.com" {
					allowed = true
				}
			}
			if !allowed {
				t.Errorf("no lambda:InvokeFunction permission of %s for API Gateway on %s", tt.function, path)
			}
		})
	}
	assertTemplate(t, "JWT authorizer from context", func() {
		tmpl.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Authorizer"), obj(map[string]any{
			"AuthorizerType": "JWT",
			"JwtConfiguration": map[string]any{
				"Issuer":   testIssuer,
				"Audience": []any{testAudience},
			},
		}))
	})
	assertTemplate(t, "stage throttling and access logs", func() {
		tmpl.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Stage"), obj(map[string]any{
			"StageName":  "$default",
			"AutoDeploy": true,
			"DefaultRouteSettings": obj(map[string]any{
				"ThrottlingRateLimit":  200,
				"ThrottlingBurstLimit": 400,
			}),
			"AccessLogSettings": obj(map[string]any{
				"DestinationArn": getAtt(onlyID(t, raw, "AWS::Logs::LogGroup", "HttpApiAccessLogs"), "Arn"),
				"Format":         assertions.Match_StringLikeRegexp(jsii.String(`\$context\.requestId`)),
			}),
		}))
	})
}

// onlyID returns the one logical id of type typ that starts with prefix.
func onlyID(t *testing.T, tmpl map[string]any, typ, prefix string) string {
	t.Helper()
	var found []string
	for id := range resources(tmpl, typ) {
		if strings.HasPrefix(id, prefix) {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s %s*: found %v, want one", typ, prefix, found)
	}
	return found[0]
}

func TestEventSourceMappings(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	tests := []struct{ topic, function string }{
		{topicWorkflows, fnWorkflowProcessor},
		{topicTasks, fnTaskProcessor},
	}
	assertTemplate(t, "mapping count", func() {
		tmpl.ResourceCountIs(jsii.String("AWS::Lambda::EventSourceMapping"), jsii.Number(len(tests)))
	})
	shared := sharedMappingSettings(t)
	for _, tt := range tests {
		t.Run(tt.topic, func(t *testing.T) {
			fnID := functionID(t, raw, tt.function)
			want := map[string]any{
				"EventSourceArn":   testClusterArn,
				"Topics":           []any{tt.topic},
				"FunctionName":     map[string]any{"Ref": fnID},
				"StartingPosition": "LATEST",
				"AmazonManagedKafkaEventSourceConfig": map[string]any{
					"ConsumerGroupId": consumerGroupID(tt.function),
				},
				// Provisioned mode: Lambda rejects the retry controls
				// below on a Kafka mapping without it.
				"ProvisionedPollerConfig": obj(map[string]any{"MinimumPollers": esmMinPollers}),
			}
			// Every setting of the shared file, under its own
			// CloudFormation name, exactly as the local stack uses it:
			// -1 for the retry and record-age limits, set explicitly.
			for key, v := range shared {
				want[key] = v
			}
			for _, key := range []string{"MaximumRetryAttempts", "MaximumRecordAgeInSeconds"} {
				if shared[key] != float64(unlimited) {
					t.Fatalf("%s %s = %v, want %d (no limit)", defaultMappingSettingsFile, key, shared[key], unlimited)
				}
			}
			// No on-failure destination: nothing is discarded, and with
			// one Lambda would cap the retries at 10.
			want["DestinationConfig"] = assertions.Match_Absent()
			assertTemplate(t, tt.topic+" → "+tt.function, func() {
				tmpl.HasResourceProperties(jsii.String("AWS::Lambda::EventSourceMapping"), obj(want))
			})
		})
	}
}

// sharedMappingSettings is internal/eventsource/mapping.json, the settings the
// local stack's MSK stand-in embeds, read as plain JSON rather than
// through loadMappingSettings, so the template is compared with the file
// itself.
func sharedMappingSettings(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../" + defaultMappingSettingsFile)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"BatchSize", "MaximumBatchingWindowInSeconds", "MaximumRetryAttempts",
		"BisectBatchOnFunctionError", "MaximumRecordAgeInSeconds"} {
		if _, ok := out[key]; !ok {
			t.Fatalf("%s has no %s", defaultMappingSettingsFile, key)
		}
	}
	return out
}

// assertionsAny matches any value inside a pattern.
func assertionsAny() any { return assertions.Match_AnyValue() }

func TestKafkaPermissions(t *testing.T) {
	_, raw := stackTemplate(t)
	topic := func(name string) string { return clusterResourceArn(testClusterArn, "topic", name) }
	group := func(fn string) string { return clusterResourceArn(testClusterArn, "group", consumerGroupID(fn)) }
	tests := []struct {
		name     string
		reads    []string // topics it consumes
		writes   []string // topics it produces to
		noWrites []string
	}{
		{fnWebhook, nil, []string{topicWorkflows, topicTasks}, []string{topicWorkflows + dlqSuffix, topicOperations}},
		{fnAPI, nil, []string{topicWorkflows, topicTasks, topicOperations}, []string{topicTasks + dlqSuffix}},
		{fnWorkflowProcessor, []string{topicWorkflows}, []string{topicWorkflows, topicTasks, topicWorkflows + dlqSuffix}, []string{topicOperations}},
		{fnTaskProcessor, []string{topicTasks}, []string{topicWorkflows, topicTasks, topicTasks + dlqSuffix}, []string{topicOperations}},
		{fnOutboxRelay, nil, []string{topicWorkflows, topicTasks, topicOperations}, nil},
		{fnRetrySweeper, nil, []string{topicWorkflows, topicTasks, topicOperations}, nil},
		{fnArchiver, nil, nil, []string{topicWorkflows, topicTasks, topicOperations}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stmts, _ := roleStatements(t, raw, tt.name)
			if !canRead(stmts, "kafka-cluster:Connect", testClusterArn) {
				t.Error("cannot kafka-cluster:Connect to the cluster")
			}
			if !canRead(stmts, "ec2:CreateNetworkInterface", "*") || !canRead(stmts, "ec2:DeleteNetworkInterface", "*") {
				t.Error("cannot manage its VPC network interfaces")
			}
			for _, tp := range tt.writes {
				if !canRead(stmts, "kafka-cluster:WriteData", topic(tp)) {
					t.Errorf("cannot write to %s", tp)
				}
			}
			if len(tt.writes) > 0 && !canRead(stmts, "kafka-cluster:WriteDataIdempotently", testClusterArn) {
				t.Error("cannot use the idempotent producer")
			}
			for _, tp := range tt.noWrites {
				if canRead(stmts, "kafka-cluster:WriteData", topic(tp)) {
					t.Errorf("may write to %s, which it never produces to", tp)
				}
			}
			for _, tp := range []string{topicWorkflows, topicTasks, topicOperations} {
				consumes := len(tt.reads) > 0 && tt.reads[0] == tp
				if got := canRead(stmts, "kafka-cluster:ReadData", topic(tp)); got != consumes {
					t.Errorf("ReadData on %s = %v, want %v", tp, got, consumes)
				}
			}
			if len(tt.reads) > 0 {
				for _, action := range []string{"kafka-cluster:DescribeGroup", "kafka-cluster:AlterGroup"} {
					if !canRead(stmts, action, group(tt.name)) {
						t.Errorf("cannot %s on its consumer group", action)
					}
				}
			}
		})
	}
}

func TestSchedules(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	tests := []struct {
		function   string
		expression string
	}{
		{fnOutboxRelay, "rate(1 minute)"},
		{fnRetrySweeper, "rate(1 minute)"},
		{fnArchiver, "cron(0 3 * * ? *)"},
	}
	assertTemplate(t, "schedule count", func() {
		tmpl.ResourceCountIs(jsii.String("AWS::Scheduler::Schedule"), jsii.Number(len(tests)))
	})
	dlqs := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.function, func(t *testing.T) {
			fnID := functionID(t, raw, tt.function)
			assertTemplate(t, tt.function, func() {
				tmpl.HasResourceProperties(jsii.String("AWS::Scheduler::Schedule"), obj(map[string]any{
					"ScheduleExpression": tt.expression,
					"State":              "ENABLED",
					"Target": obj(map[string]any{
						"Arn": getAtt(fnID, "Arn"),
						"RetryPolicy": map[string]any{
							"MaximumRetryAttempts":     assertions.Match_AnyValue(),
							"MaximumEventAgeInSeconds": assertions.Match_AnyValue(),
						},
						"DeadLetterConfig": map[string]any{"Arn": getAtt(assertionsAny(), "Arn")},
						"Input":            assertions.Match_StringLikeRegexp(jsii.String(`"detail-type":"Scheduled Event"`)),
					}),
				}))
			})
			for _, s := range resources(raw, "AWS::Scheduler::Schedule") {
				target := props(s)["Target"].(map[string]any)
				if render(target["Arn"]) == "getatt:"+fnID+".Arn" {
					dlqs[tt.function] = render(target["DeadLetterConfig"].(map[string]any)["Arn"])
				}
			}
		})
	}
	seen := map[string]string{}
	for fn, dlq := range dlqs {
		if other, dup := seen[dlq]; dup {
			t.Errorf("%s and %s share the dead-letter queue %s; each schedule has its own", fn, other, dlq)
		}
		seen[dlq] = fn
	}
}

// secretArn is the ARN Secrets Manager gives the secret name (with its
// random suffix).
func secretArn(name string) string {
	return "arn:aws:secretsmanager:" + testRegion + ":" + testAccount + ":secret:" + name + "-AbCdEf"
}

func TestWebhookCannotReadPartnerOrAdminSecrets(t *testing.T) {
	_, raw := stackTemplate(t)
	stmts, managed := roleStatements(t, raw, fnWebhook)
	if !canRead(stmts, "secretsmanager:GetSecretValue", secretArn(secretPrefixWebhook+"stripe")) {
		t.Fatal("webhook cannot read streamops/webhook/stripe: the check below would prove nothing")
	}
	forbidden := []string{
		secretArn(secretPrefixPartner + "acme"),
		secretArn(secretPrefixPartner + "any-partner"),
		secretArn(secretPrefixAdmin + "break-glass"),
	}
	// The stack's own partner secrets, by reference, in case a grant
	// names them instead of an ARN.
	for id, s := range resources(raw, "AWS::SecretsManager::Secret") {
		if name, _ := props(s)["Name"].(string); strings.HasPrefix(name, secretPrefixPartner) {
			forbidden = append(forbidden, "ref:"+id)
		}
	}
	for _, res := range forbidden {
		for _, action := range []string{"secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"} {
			if canRead(stmts, action, res) {
				t.Errorf("webhook's role allows %s on %s", action, res)
			}
		}
	}
	for _, arn := range managed {
		if !strings.Contains(arn, ":iam::aws:policy/service-role/AWSLambda") {
			t.Errorf("webhook's role has managed policy %s; only the AWSLambda* execution roles are expected", arn)
		}
	}
}

func TestEachFunctionReadsOnlyTheSecretsItNeeds(t *testing.T) {
	_, raw := stackTemplate(t)
	secrets := map[string]string{
		"webhook":           secretArn(secretPrefixWebhook + "acme"),
		"partner":           secretArn(secretPrefixPartner + "acme"),
		"admin":             secretArn(secretPrefixAdmin + "break-glass"),
		"mongodb":           secretArn("streamops/mongodb-uri"),
		"mongodb-lookalike": secretArn("streamops/mongodb-uri-old"),
	}
	// Every function reads the MongoDB URI at cold start (MONGODB_URI_SECRET).
	allowed := map[string][]string{
		fnWebhook:           {"webhook", "mongodb"},
		fnAPI:               {"partner", "mongodb"},
		fnWorkflowProcessor: {"mongodb"},
		fnTaskProcessor:     {"mongodb"},
		fnOutboxRelay:       {"partner", "mongodb"},
		fnRetrySweeper:      {"mongodb"},
		fnArchiver:          {"mongodb"},
	}
	for _, name := range functionNames {
		t.Run(name, func(t *testing.T) {
			stmts, _ := roleStatements(t, raw, name)
			for _, kind := range sortedKeys(secrets) {
				want := false
				for _, a := range allowed[name] {
					want = want || a == kind
				}
				if got := canRead(stmts, "secretsmanager:GetSecretValue", secrets[kind]); got != want {
					t.Errorf("may read %s secrets = %v, want %v", kind, got, want)
				}
			}
		})
	}
}

func TestPlaceholderSecretsExistPerProviderAndPartner(t *testing.T) {
	tmpl, _ := stackTemplate(t)
	for _, name := range []string{
		secretPrefixWebhook + "stripe", secretPrefixWebhook + "github", secretPrefixWebhook + "standard",
		secretPrefixWebhook + "acme", secretPrefixPartner + "acme",
	} {
		assertTemplate(t, name, func() {
			tmpl.HasResource(jsii.String("AWS::SecretsManager::Secret"), obj(map[string]any{
				"Properties":     obj(map[string]any{"Name": name, "GenerateSecretString": assertions.Match_AnyValue()}),
				"DeletionPolicy": "Retain",
			}))
		})
	}
}

func TestAlarms(t *testing.T) {
	tmpl, raw := stackTemplate(t)
	type alarm struct {
		name       string
		namespace  string
		metric     string
		dimensions []any
		threshold  float64
		periods    float64
	}
	fnDim := func(name string) []any {
		return []any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": functionID(t, raw, name)}}}
	}
	var want []alarm
	for _, name := range functionNames {
		want = append(want,
			alarm{constructID(name) + "-Errors", "AWS/Lambda", "Errors", fnDim(name), 0, 1},
			alarm{constructID(name) + "-Throttles", "AWS/Lambda", "Throttles", fnDim(name), 0, 1})
	}
	for _, name := range []string{fnWorkflowProcessor, fnTaskProcessor} {
		want = append(want, alarm{constructID(name) + "-OffsetLag", "AWS/Lambda", "OffsetLag", fnDim(name), 1000, 3})
	}
	// The failure queues: the schedules' dead-letter queues and the
	// archiver's on-failure destination, found through what uses them
	// (the mappings have none: TestEventSourceMappings).
	var failureQueues []string
	for _, s := range resources(raw, "AWS::Scheduler::Schedule") {
		dlq := render(props(s)["Target"].(map[string]any)["DeadLetterConfig"].(map[string]any)["Arn"])
		failureQueues = append(failureQueues, strings.TrimSuffix(strings.TrimPrefix(dlq, "getatt:"), ".Arn"))
	}
	for _, c := range resources(raw, "AWS::Lambda::EventInvokeConfig") {
		dest, ok := props(c)["DestinationConfig"].(map[string]any)
		if !ok {
			continue
		}
		arn := render(dest["OnFailure"].(map[string]any)["Destination"])
		failureQueues = append(failureQueues, strings.TrimSuffix(strings.TrimPrefix(arn, "getatt:"), ".Arn"))
	}
	if len(failureQueues) != 4 {
		t.Fatalf("found failure queues %v, want 3 schedule dead-letter + the archiver's on-failure", failureQueues)
	}
	for _, q := range failureQueues {
		want = append(want, alarm{"queue " + q, "AWS/SQS", "ApproximateNumberOfMessagesVisible",
			[]any{map[string]any{"Name": "QueueName", "Value": getAtt(q, "QueueName")}}, 0, 1})
	}
	want = append(want, alarm{"OutboxRelay-OldestPendingAge", metricsNamespace, metricOldestPendingOutboxAge,
		[]any{map[string]any{"Name": metricDimensionFunction, "Value": fnOutboxRelay}}, 900, 1})
	// Dead letters, and the one MSK alarm on a plain metric; the MSK
	// alarms on Metrics Insights queries are TestMSKAlarmsWatchEveryBroker's.
	emfDim := func(fn string) []any { return []any{map[string]any{"Name": metricDimensionFunction, "Value": fn}} }
	want = append(want,
		alarm{"WorkflowProcessor-DeadLettered", metricsNamespace, metricDeadLettered, emfDim(fnWorkflowProcessor), 0, 1},
		alarm{"TaskProcessor-DeadLettered", metricsNamespace, metricDeadLettered, emfDim(fnTaskProcessor), 0, 1},
		alarm{"OutboxRelay-DeadLettered", metricsNamespace, metricOutboxDeadLettered, emfDim(fnOutboxRelay), 0, 1},
		alarm{"RetrySweeper-DeadLettered", metricsNamespace, metricSweeperDeadLettered, emfDim(fnRetrySweeper), 0, 1},
		alarm{"MSK-OfflinePartitions", mskNamespace, mskOfflinePartitionsCount,
			[]any{map[string]any{"Name": mskDimCluster, "Value": testClusterName}}, 0, 1})

	assertTemplate(t, "alarm count", func() {
		tmpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(len(want)+len(mskQueryAlarms)))
	})
	for _, a := range want {
		t.Run(a.name, func(t *testing.T) {
			pattern := map[string]any{
				"Namespace":          a.namespace,
				"MetricName":         a.metric,
				"Dimensions":         a.dimensions,
				"Threshold":          a.threshold,
				"EvaluationPeriods":  a.periods,
				"ComparisonOperator": "GreaterThanThreshold",
				"TreatMissingData":   "notBreaching",
				"AlarmActions":       []any{testAlarmTopicArn},
				"OKActions":          []any{testAlarmTopicArn},
			}
			if !strings.HasPrefix(a.name, "queue ") {
				pattern["AlarmName"] = stackName + "-" + a.name
			}
			assertTemplate(t, a.name, func() {
				tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj(pattern))
			})
		})
	}
}

func TestOneDashboard(t *testing.T) {
	tmpl, _ := stackTemplate(t)
	assertTemplate(t, "dashboard", func() {
		tmpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Dashboard"), jsii.Number(1))
		tmpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Dashboard"), obj(map[string]any{"DashboardName": stackName}))
	})
}
