package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// nagFinding is one cdk-nag error or warning: the rule and the construct
// path it was reported on.
type nagFinding struct {
	level string
	rule  string
	path  string
}

func (f nagFinding) String() string { return f.level + " " + f.rule + " " + f.path }

// applyNagPacks runs cdk-nag's AwsSolutions and Serverless packs over the
// app, as CDK users run them; suppressions live beside the resources
// (nag.go) with the reason for each.
func applyNagPacks(app constructs.IConstruct) {
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	awscdk.Aspects_Of(app).Add(cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
}

// nagRule is the rule id at the start of a cdk-nag message.
var nagRule = regexp.MustCompile(`(AwsSolutions|Serverless)-[A-Za-z0-9]+(\[[^\]]*\])?`)

// nagFindings reads cdk-nag's annotations from the synthesized stack.
func nagFindings(stack awscdk.Stack) []nagFinding {
	ann := assertions.Annotations_FromStack(stack)
	var out []nagFinding
	for _, m := range *ann.FindError(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String("(AwsSolutions|Serverless)-"))) {
		out = append(out, nagFinding{"error", nagRule.FindString(fmt.Sprint(m.Entry.Data)), *m.Id})
	}
	for _, m := range *ann.FindWarning(jsii.String("*"), assertions.Match_StringLikeRegexp(jsii.String("(AwsSolutions|Serverless)-"))) {
		out = append(out, nagFinding{"warning", nagRule.FindString(fmt.Sprint(m.Entry.Data)), *m.Id})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func TestCdkNagAwsSolutionsAndServerlessFindNothingUnsuppressed(t *testing.T) {
	stackTemplate(t)
	if n := len(synthesized.findings); n > 0 {
		var lines []string
		for _, f := range synthesized.findings {
			lines = append(lines, "  "+f.String())
		}
		t.Errorf("cdk-nag: %d findings (fix it, or, when it is by design, suppress it beside the resource with suppress (nag.go) and the reason):\n%s", n, strings.Join(lines, "\n"))
	}
}
