package main

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// The tests synthesize the stack once, from testContext and a directory of
// stand-in zips (a few bytes each, not the real bootstraps), so they depend
// neither on `make build` having run nor on cdk.json's placeholders.

// Values the test context deploys with; assertions compare against them.
// testAccount and testRegion stand for the pseudo parameters of the
// environment-agnostic template when rendering ARNs.
const (
	testAccount       = "111111111111"
	testRegion        = "eu-west-1"
	testClusterArn    = "arn:aws:kafka:eu-west-1:111111111111:cluster/streamops-test/1234abcd-12ab-34cd-56ef-1234567890ab-2"
	testBrokers       = "b-1.streamops.test:9098,b-2.streamops.test:9098"
	testIssuer        = "https://auth.streamops.test/"
	testAudience      = "streamops-api"
	testAlarmTopicArn = "arn:aws:sns:eu-west-1:111111111111:streamops-alarms"
	testSecurityGroup = "sg-0123456789abcdef0"
	testEmailSender   = "StreamOps <noreply@mail.streamops.test>"
)

var testSubnets = []any{"subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"}

// testContext is a complete, non-placeholder configuration; deploy-mode
// validation (requireRealContext) is on, as under `make deploy`.
func testContext(assetDir string) map[string]any {
	return map[string]any{
		ctxAssetDir:           assetDir,
		ctxMSKClusterArn:      testClusterArn,
		ctxKafkaBrokers:       testBrokers,
		ctxVpcID:              "vpc-0123456789abcdef0",
		ctxSubnetIDs:          testSubnets,
		ctxSecurityGroupID:    testSecurityGroup,
		ctxJWTIssuer:          testIssuer,
		ctxJWTAudience:        []any{testAudience},
		ctxAlarmTopicArn:      testAlarmTopicArn,
		ctxEmailSender:        testEmailSender,
		ctxWebhookProviders:   []any{"stripe", "github", "standard", "acme"},
		ctxPartners:           []any{"acme"},
		ctxRequireRealContext: true,
		// The tests run in infra/, the CDK CLI at the repository root.
		ctxMappingSettingsFile: "../" + defaultMappingSettingsFile,
	}
}

// synthesis is one synthesized stack.
type synthesis struct {
	template assertions.Template
	json     map[string]any
	// findings are cdk-nag's error and warning annotations on the stack.
	findings []nagFinding
	// outdir is the cloud assembly (template and staged assets).
	outdir string
}

// synthesized is the stack under test, built once per test binary.
var synthesized struct {
	once sync.Once
	synthesis
	err  error
	tmps []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	jsii.Close()
	for _, tmp := range synthesized.tmps {
		_ = os.RemoveAll(tmp)
	}
	os.Exit(code)
}

// stackTemplate returns the synthesized template of testContext, failing
// t if synthesis failed.
func stackTemplate(t *testing.T) (assertions.Template, map[string]any) {
	t.Helper()
	synthesized.once.Do(func() {
		synthesized.synthesis, synthesized.err = synth(nil)
	})
	if synthesized.err != nil {
		t.Fatal(synthesized.err)
	}
	return synthesized.template, synthesized.json
}

// synth synthesizes the stack from testContext with extra on top, with
// cdk-nag's packs applied.
func synth(extra map[string]any) (out synthesis, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("synth panicked: %v", r)
		}
	}()
	tmp, err := os.MkdirTemp("", "streamops-infra-test-")
	if err != nil {
		return out, err
	}
	synthesized.tmps = append(synthesized.tmps, tmp)
	assets := filepath.Join(tmp, "assets")
	if err := writeStandInZips(assets); err != nil {
		return out, err
	}
	ctx := testContext(assets)
	for k, v := range extra {
		ctx[k] = v
	}
	out.outdir = filepath.Join(tmp, "cdk.out")
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(out.outdir)})
	cfg, err := configFromContext(app)
	if err != nil {
		return out, err
	}
	if err := checkAssets(cfg); err != nil {
		return out, err
	}
	if err := loadMappingSettings(&cfg); err != nil {
		return out, err
	}
	// Environment-agnostic, as main synthesizes it.
	stack, err := newStreamOpsStack(app, cfg, nil)
	if err != nil {
		return out, err
	}
	applyNagPacks(app)
	out.template = assertions.Template_FromStack(stack, nil)
	out.findings = nagFindings(stack)
	out.json = *out.template.ToJSON()
	return out, nil
}

// writeStandInZips writes <dir>/<function>.zip for every function, each
// holding a tiny "bootstrap".
func writeStandInZips(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range assetNames {
		f, err := os.Create(filepath.Join(dir, name+".zip"))
		if err != nil {
			return err
		}
		zw := zip.NewWriter(f)
		w, err := zw.Create("bootstrap")
		if err == nil {
			_, err = w.Write([]byte("stand-in for " + name))
		}
		if err == nil {
			err = zw.Close()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// assertTemplate runs a CDK assertion, turning the panic a failed one
// raises inside jsii into a test failure that says what was checked.
func assertTemplate(t *testing.T, what string, assertion func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: %v", what, r)
		}
	}()
	assertion()
}

// resources returns the template's resources of type typ by logical id.
func resources(tmpl map[string]any, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range tmpl["Resources"].(map[string]any) {
		res := r.(map[string]any)
		if res["Type"] == typ {
			out[id] = res
		}
	}
	return out
}

// props returns a resource's Properties.
func props(res map[string]any) map[string]any {
	p, _ := res["Properties"].(map[string]any)
	return p
}

// functionID returns the logical id of function name (found by its
// description, "StreamOps <name>: …").
func functionID(t *testing.T, tmpl map[string]any, name string) string {
	t.Helper()
	var found []string
	for id, res := range resources(tmpl, "AWS::Lambda::Function") {
		if d, _ := props(res)["Description"].(string); strings.HasPrefix(d, "StreamOps "+name+":") {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("function %s: want one AWS::Lambda::Function, found %v", name, found)
	}
	return found[0]
}

// statement is one IAM policy statement, with its actions and resources
// rendered to strings (see render).
type statement struct {
	effect    string
	actions   []string
	resources []string
	// conditions is the statement's Condition block as in the template.
	conditions map[string]any
}

// roleStatements returns every statement of the inline policies attached
// to function name's role, and the role's managed policy ARNs.
func roleStatements(t *testing.T, tmpl map[string]any, name string) (stmts []statement, managed []string) {
	t.Helper()
	fn := resources(tmpl, "AWS::Lambda::Function")[functionID(t, tmpl, name)]
	roleID := props(fn)["Role"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
	for _, arn := range asList(props(resources(tmpl, "AWS::IAM::Role")[roleID])["ManagedPolicyArns"]) {
		managed = append(managed, render(arn))
	}
	for _, pol := range resources(tmpl, "AWS::IAM::Policy") {
		attached := false
		for _, r := range asList(props(pol)["Roles"]) {
			if render(r) == "ref:"+roleID {
				attached = true
			}
		}
		if !attached {
			continue
		}
		doc := props(pol)["PolicyDocument"].(map[string]any)
		for _, s := range asList(doc["Statement"]) {
			sm := s.(map[string]any)
			st := statement{effect: sm["Effect"].(string)}
			st.conditions, _ = sm["Condition"].(map[string]any)
			for _, a := range asList(sm["Action"]) {
				st.actions = append(st.actions, render(a))
			}
			for _, r := range asList(sm["Resource"]) {
				st.resources = append(st.resources, render(r))
			}
			stmts = append(stmts, st)
		}
	}
	return stmts, managed
}

// asList returns v as a list: a JSON array as is, anything else as [v].
func asList(v any) []any {
	switch l := v.(type) {
	case nil:
		return nil
	case []any:
		return l
	default:
		return []any{v}
	}
}

// render turns a CloudFormation value into a string: pseudo parameters
// become the test account's values, {"Ref": X} "ref:X", {"Fn::GetAtt":
// [X, A]} "getatt:X.A", and Fn::Join is joined.
func render(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if ref, ok := x["Ref"].(string); ok {
			switch ref {
			case "AWS::Partition":
				return "aws"
			case "AWS::Region":
				return testRegion
			case "AWS::AccountId":
				return testAccount
			case "AWS::URLSuffix":
				return "amazonaws.com"
			}
			return "ref:" + ref
		}
		if ga, ok := x["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			return fmt.Sprintf("getatt:%v.%v", ga[0], ga[1])
		}
		if j, ok := x["Fn::Join"].([]any); ok && len(j) == 2 {
			var parts []string
			for _, p := range asList(j[1]) {
				parts = append(parts, render(p))
			}
			return strings.Join(parts, j[0].(string))
		}
	}
	return fmt.Sprintf("%v", v)
}

// iamMatches reports whether an IAM pattern (with * and ?) matches value.
func iamMatches(pattern, value string) bool {
	re := "^" + strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(pattern)) + "$"
	return regexp.MustCompile(re).MatchString(value)
}

// canRead reports whether stmts allow action on resource (an ARN, or
// "ref:<logical id>" for a resource of the stack).
func canRead(stmts []statement, action, resource string) bool {
	for _, s := range stmts {
		if s.effect != "Allow" {
			continue
		}
		actionOK := false
		for _, a := range s.actions {
			actionOK = actionOK || iamMatches(a, action)
		}
		if !actionOK {
			continue
		}
		for _, r := range s.resources {
			if r == resource || iamMatches(r, resource) {
				return true
			}
		}
	}
	return false
}
