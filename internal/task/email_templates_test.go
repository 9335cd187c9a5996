package task

import (
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuiltInTemplatesRenderAsTheirTextTemplates holds the Go renderers of
// the built-in templates to the text/templates they replaced (with
// missingkey=zero, "<no value>" removed), over data with variables set,
// missing, null, zero and of every JSON type.
func TestBuiltInTemplatesRenderAsTheirTextTemplates(t *testing.T) {
	was := map[string][2]string{
		"welcome_email":         {"Welcome to StreamOps", "Hello,\n\nWelcome to StreamOps. Your account is ready.\n\n— The StreamOps team\n"},
		"workflow_notification": {`Workflow {{or .workflowName "update"}}`, "Workflow {{or .workflowName .workflowId}} ({{.workflowId}}) processed {{.records}} records.\n"},
		"report_ready":          {`Your {{or .reportType "StreamOps"}} report is ready`, "Your report is ready: {{.location}}\n"},
		"generic":               {"StreamOps notification", "You have a new StreamOps notification.\n"},
	}
	data := []templateVars{
		{},
		{"workflowName": "nightly", "workflowId": "wf-1", "records": float64(3), "reportType": "daily", "location": "s3://b/k"},
		{"workflowName": "", "workflowId": "wf-2", "records": float64(1e6), "reportType": nil, "location": nil},
		{"workflowName": nil, "workflowId": float64(0), "records": []any{"a", float64(1)}, "reportType": false},
		{"workflowName": true, "workflowId": map[string]any{"k": "v"}, "records": "many", "reportType": float64(2.5)},
		{"workflowId": "", "records": map[string]any{}, "reportType": []any{}},
	}
	for name, tpl := range templates {
		for i, vars := range data {
			for part, src := range was[name] {
				tt := template.Must(template.New(name).Option("missingkey=zero").Parse(src))
				var b strings.Builder
				require.NoError(t, tt.Execute(&b, map[string]any(vars)))
				want := strings.ReplaceAll(b.String(), "<no value>", "")
				got := tpl.subject(vars)
				if part == 1 {
					got = tpl.body(vars)
				}
				assert.Equal(t, want, got, "%s part %d data %d", name, part, i)
			}
		}
	}
}
