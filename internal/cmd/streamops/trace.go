package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/streamops/streamops/internal/traceview"
)

// traceCmd is `streamops trace [-json] TRACE_ID`: one trace as a tree
// (GET /api/traces/{traceId}), a node per line, indented by depth, with
// its offset from the trace's start, its duration, kind, name and status.
func traceCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("trace", "usage: streamops trace [-json] TRACE_ID", stderr)
	asJSON := fs.Bool("json", false, "print the API's answer as it is")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one trace id (32 lowercase hex digits: an answer's X-Trace-Id, an event's metadata.traceId)")
	}
	var raw json.RawMessage
	if err := c.do(ctx, "GET", "/api/traces/"+url.PathEscape(fs.Arg(0)), nil, nil, &raw); err != nil {
		return err
	}
	if *asJSON {
		_, err := fmt.Fprintf(stdout, "%s\n", raw)
		return err
	}
	var v traceview.View
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("the answer is not a trace: %w", err)
	}
	return printTrace(stdout, v)
}

// printTrace writes v as a tree: a header line, then a node per line.
func printTrace(w io.Writer, v traceview.View) error {
	fmt.Fprintf(w, "trace %s: %d nodes, %s, from %s\n", v.TraceID, len(v.Nodes), millis(v.DurationMs),
		v.StartedAt.UTC().Format(time.RFC3339Nano))
	if v.Truncated {
		fmt.Fprintln(w, "truncated: only the trace's first 1000 events are shown")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OFFSET\tDURATION\tNODE")
	depth := traceview.Depth(v.Nodes)
	for i, n := range v.Nodes {
		d := "-"
		if n.DurationMs != nil {
			d = millis(*n.DurationMs)
		}
		line := strings.Repeat("  ", depth[i]) + n.Kind + " " + n.Name
		if n.Status != "" {
			line += "  " + n.Status
		}
		if n.Kind == traceview.KindAttempt {
			if e, _ := n.Detail["error"].(string); e != "" {
				line += "  (" + e + ")"
			}
		}
		fmt.Fprintf(tw, "+%s\t%s\t%s\n", millis(n.OffsetMs), d, line)
	}
	return tw.Flush()
}

// millis is ms as a short duration: 0ms, 12ms, 1.5s, 2m3.4s.
func millis(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return (time.Duration(ms) * time.Millisecond).Round(100 * time.Millisecond).String()
}
