package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/store"
)

// replayRequest is the body of POST /api/replays.
type replayRequest struct {
	Filter      store.ReplayFilter `json:"filter"`
	DryRun      bool               `json:"dryRun"`
	TargetTopic string             `json:"targetTopic,omitempty"`
}

// replayPreview is a dry run's answer.
type replayPreview struct {
	Count  int64             `json:"count"`
	Sample []events.Envelope `json:"sample"`
}

// replay is `streamops replay`: a dry run of the filter (count and sample),
// a confirmation, then the replay, whose session it prints.
func replay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("replay", "usage: streamops replay [flags]\n\nReplays the events a filter selects (POST /api/replays): a dry run first, then asks.", stderr)
	filters := addFilterFlags(fs)
	target := fs.String("target-topic", "", "publish the replayed events to this topic instead of their own")
	yes := fs.Bool("yes", false, "replay without asking (after printing the dry run)")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	f, err := filters.filter(fs, time.Now())
	if err != nil {
		return err
	}
	if f.IsEmpty() {
		return fmt.Errorf("no filter: name the events to replay (-type, -aggregate, -execution, -since, …)")
	}
	var preview replayPreview
	if err := c.do(ctx, "POST", "/api/replays", nil, replayRequest{Filter: f, DryRun: true}, &preview); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "dry run: %d events match", preview.Count)
	if len(preview.Sample) > 0 {
		fmt.Fprintf(stdout, "; the first %d:\n", len(preview.Sample))
		for _, e := range preview.Sample {
			if err := printEvent(stdout, e, false); err != nil {
				return err
			}
		}
	} else {
		fmt.Fprintln(stdout)
	}
	if preview.Count == 0 {
		fmt.Fprintln(stdout, "nothing to replay.")
		return nil
	}
	dest := "their own topics"
	if *target != "" {
		dest = "topic " + *target
	}
	if !*yes && !confirm(stdin, stdout, fmt.Sprintf("replay these %d events to %s, each as a new event? [y/N] ", preview.Count, dest)) {
		return errAborted
	}
	var session httpapi.ReplayResponse
	if err := c.do(ctx, "POST", "/api/replays", nil, replayRequest{Filter: f, TargetTopic: *target}, &session); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "replay %s %s: %d of %d events replayed, %d failed\n",
		session.SessionID, session.Status, session.ReplayedEvents, session.TotalEvents, session.FailedEvents)
	for _, e := range session.Errors {
		fmt.Fprintf(stdout, "  %s: %s\n", e.EventID, e.Error)
	}
	if session.FailedEvents > 0 {
		return fmt.Errorf("%d events were not replayed", session.FailedEvents)
	}
	return nil
}

// confirm asks question on out and reports whether the answer read from in
// is yes.
func confirm(in io.Reader, out io.Writer, question string) bool {
	fmt.Fprint(out, question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
