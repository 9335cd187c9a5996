package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// replaySession is the API's answer for a replay session (POST
// /api/replays, GET /api/replays/{id}), in the API's own type.
type replaySession = httpapi.ReplayResponse

// replayRequest is the body of POST /api/replays.
type replayRequest struct {
	Filter        store.ReplayFilter `json:"filter"`
	DryRun        bool               `json:"dryRun"`
	TargetTopic   string             `json:"targetTopic,omitempty"`
	RatePerSecond float64            `json:"ratePerSecond,omitempty"`
}

// replayPreview is a dry run's answer.
type replayPreview struct {
	Count  int64             `json:"count"`
	Sample []events.Envelope `json:"sample"`
}

// replayList is GET /api/replays.
type replayList struct {
	Replays []replaySession `json:"replays"`
}

// replayUsage heads `streamops replay -h`.
const replayUsage = `usage: streamops replay [flags]          dry run, confirm, start, then follow its progress
       streamops replay status [-watch] ID one snapshot of a session, or follow it
       streamops replay cancel ID          cancel a running session
       streamops replay list [-limit N]    the recent sessions, newest first

A replay is a background job (POST /api/replays answers 202 at once): the
command follows it until it ends; -detach or Ctrl-C leaves it running.`

// replay is `streamops replay`: a dry run of the filter (count and sample),
// a confirmation, then the replay, whose progress it follows; and its
// subcommands status, cancel and list.
func replay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch sub, rest := args[0], args[1:]; sub {
		case "status":
			return replayStatus(ctx, rest, stdout, stderr)
		case "cancel":
			return replayCancel(ctx, rest, stdout, stderr)
		case "list", "ls":
			return replayListCmd(ctx, rest, stdout, stderr)
		default:
			return fmt.Errorf("unknown subcommand %q: status, cancel or list (or filter flags to start one)", sub)
		}
	}
	fs, newClient := newCommand("replay", replayUsage, stderr)
	filters := addFilterFlags(fs)
	target := fs.String("target-topic", "", "publish the replayed events to this topic instead of their own")
	yes := fs.Bool("yes", false, "replay without asking (after printing the dry run)")
	rate := fs.Float64("rate", 0, "replay at most this many events per second (ratePerSecond; 0: the API's default)")
	detach := fs.Bool("detach", false, "start the replay, print its id and return without following it")
	interval := fs.Duration("interval", 500*time.Millisecond, "how often to poll the session while following it")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	if *rate < 0 {
		return fmt.Errorf("-rate %g: a rate is a number of events per second above 0", *rate)
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
	var session replaySession
	if err := c.do(ctx, "POST", "/api/replays", nil, replayRequest{Filter: f, TargetTopic: *target, RatePerSecond: *rate}, &session); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "replay %s started: %d events", session.SessionID, session.TotalEvents)
	if r := session.Config.RatePerSecond; r > 0 {
		fmt.Fprintf(stdout, " at most %g/s", r)
	}
	fmt.Fprintln(stdout)
	if *detach {
		printFollowHint(stdout, session.SessionID)
		return nil
	}
	return watchReplay(ctx, c, session, *interval, stdout)
}

// replayStatus is `streamops replay status [-watch] ID`.
func replayStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("replay status", "usage: streamops replay status [-watch] ID", stderr)
	watch := fs.Bool("watch", false, "follow the session with a progress bar until it ends")
	interval := fs.Duration("interval", 500*time.Millisecond, "how often to poll the session with -watch")
	c, id, err := parseWithID(fs, args, newClient, "name the replay session (its session_id, see streamops replay list)")
	if err != nil {
		return err
	}
	var s replaySession
	if err := c.do(ctx, "GET", replayPath(id), nil, nil, &s); err != nil {
		return err
	}
	if *watch {
		return watchReplay(ctx, c, s, *interval, stdout)
	}
	fmt.Fprintln(stdout, progressLine(s))
	printReplayErrors(stdout, s)
	return nil
}

// replayCancel is `streamops replay cancel ID`.
func replayCancel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("replay cancel", "usage: streamops replay cancel ID", stderr)
	c, id, err := parseWithID(fs, args, newClient, "name the replay session to cancel (its session_id, see streamops replay list)")
	if err != nil {
		return err
	}
	var s replaySession
	if err := c.do(ctx, "POST", replayPath(id)+"/cancel", nil, nil, &s); err != nil {
		return fmt.Errorf("cancel %s: %w", id, err)
	}
	fmt.Fprintf(stdout, "replay %s %s: %d of %d events replayed, %d failed\n",
		s.SessionID, s.Status, s.ReplayedEvents, s.TotalEvents, s.FailedEvents)
	return nil
}

// replayListCmd is `streamops replay list`.
func replayListCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("replay list", "usage: streamops replay list [-limit N]", stderr)
	limit := fs.Int("limit", 20, "at most this many sessions, 1 to 100")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	var page replayList
	if err := c.do(ctx, "GET", "/api/replays", url.Values{"limit": {strconv.Itoa(*limit)}}, nil, &page); err != nil {
		return err
	}
	if len(page.Replays) == 0 {
		fmt.Fprintln(stdout, "no replay sessions.")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTATUS\tDONE\tPERCENT\tFAILED\tCREATED")
	for _, s := range page.Replays {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.1f%%\t%d\t%s\n", s.SessionID, s.Status, s.Progress.Done, s.Progress.Total,
			s.Progress.Percent, s.FailedEvents, s.CreatedAt.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

// watchReplay follows session s with a progress bar, polling every
// interval until it ends, then prints its errors. It fails when the
// session did not complete or left events unreplayed, so a script sees
// it. When ctx ends (Ctrl-C) it detaches: the session goes on.
func watchReplay(ctx context.Context, c *client, s replaySession, interval time.Duration, stdout io.Writer) error {
	bar := newProgressBar(stdout, isTerminal(stdout))
	for s.Status == status.ReplayRunning {
		bar.update(s)
		select {
		case <-ctx.Done():
			return detached(bar, stdout, s.SessionID)
		case <-time.After(interval):
		}
		var next replaySession
		if err := c.do(ctx, "GET", replayPath(s.SessionID), nil, nil, &next); err != nil {
			if ctx.Err() != nil {
				return detached(bar, stdout, s.SessionID)
			}
			bar.interrupt()
			return fmt.Errorf("following replay %s (it goes on; streamops replay status %s): %w", s.SessionID, s.SessionID, err)
		}
		s = next
	}
	bar.finish(s)
	printReplayErrors(stdout, s)
	switch {
	case s.Status == status.ReplayFailed:
		return fmt.Errorf("replay %s failed: %d of %d events replayed", s.SessionID, s.ReplayedEvents, s.TotalEvents)
	case s.Status == status.ReplayCancelled:
		return fmt.Errorf("replay %s was cancelled: %d of %d events replayed", s.SessionID, s.ReplayedEvents, s.TotalEvents)
	case s.FailedEvents > 0:
		return fmt.Errorf("replay %s: %d events were not replayed", s.SessionID, s.FailedEvents)
	}
	return nil
}

// detached says the session goes on without the command, and how to
// follow or cancel it.
func detached(bar *progressBar, stdout io.Writer, id string) error {
	bar.interrupt()
	fmt.Fprintf(stdout, "detached: replay %s goes on in the background.\n", id)
	printFollowHint(stdout, id)
	return nil
}

func printFollowHint(w io.Writer, id string) {
	fmt.Fprintf(w, "  follow it: streamops replay status -watch %s\n  cancel it: streamops replay cancel %s\n", id, id)
}

// printReplayErrors prints the errors s keeps, and how many it did not.
func printReplayErrors(w io.Writer, s replaySession) {
	if len(s.Errors) == 0 && s.ErrorsDropped == 0 {
		return
	}
	fmt.Fprintln(w, "errors:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range s.Errors {
		id := e.EventID
		if id == "" {
			id = "(session)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", e.ErrorType, id, e.Error)
	}
	_ = tw.Flush()
	if s.ErrorsDropped > 0 {
		fmt.Fprintf(w, "  %d more errors not kept\n", s.ErrorsDropped)
	}
}

func replayPath(id string) string { return "/api/replays/" + url.PathEscape(id) }

// parseWithID parses args, where one ID may stand before or after the
// flags, and builds the client.
func parseWithID(fs *flag.FlagSet, args []string, newClient func() (*client, error), missing string) (*client, string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, "", err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return nil, "", errors.New(missing)
	}
	id := rest[0]
	if err := fs.Parse(rest[1:]); err != nil {
		return nil, "", err
	}
	if fs.NArg() > 0 {
		return nil, "", fmt.Errorf("one session id, not %d", fs.NArg()+1)
	}
	c, err := newClient()
	return c, id, err
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
