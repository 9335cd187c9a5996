package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/streamops/streamops/internal/httpapi"
)

// rerun is `streamops rerun [-from-step S] [-key K] WORKFLOW_ID`: POST
// /api/workflows/{id}/rerun, printing the attempt it started.
func rerun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("rerun", "usage: streamops rerun [-from-step S] [-key K] WORKFLOW_ID", stderr)
	from := fs.String("from-step", "", "the step to rerun from (default: the step that failed; required for a completed workflow)")
	key := fs.String("key", "", "Idempotency-Key: the same key again answers the same rerun instead of starting another")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one workflow to rerun (its workflowId)")
	}
	id := fs.Arg(0)
	var header http.Header
	if *key != "" {
		header = http.Header{"Idempotency-Key": {*key}}
	}
	var body any
	if *from != "" {
		body = map[string]string{"fromStep": *from}
	}
	var wf httpapi.WorkflowResponse
	if err := c.doWith(ctx, "POST", "/api/workflows/"+url.PathEscape(id)+"/rerun", nil, header, body, &wf); err != nil {
		return fmt.Errorf("rerun %s: %w", id, err)
	}
	step := ""
	if n := len(wf.Reruns); n > 0 {
		step = wf.Reruns[n-1].FromStep
	}
	fmt.Fprintf(stdout, "rerun %s: attempt %d, %s from step %s (timeline: /console/timeline/%s)\n", wf.WorkflowID, wf.Attempt, wf.Status, step, wf.WorkflowID)
	return nil
}
