package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/httpapi"
)

// partnersCmd is `streamops partners create|update|rotate|disable|enable|delete ID …`
// (the partners kept in the store), `streamops partners pause ID [-reason R]`,
// `streamops partners resume ID`, `streamops partners requeue ID …`,
// `streamops partners test ID [-event-type T]` and `streamops partners
// subscriptions ID [-event-types T,… -filter JSON] [-last N]`.
func partnersCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("name a subcommand: %s", partnerSubcommands)
	}
	switch sub := args[0]; sub {
	case "create":
		return partnersCreate(ctx, args[1:], stdout, stderr)
	case "update":
		return partnersUpdate(ctx, args[1:], stdout, stderr)
	case "rotate":
		return partnersRotate(ctx, args[1:], stdout, stderr)
	case "disable":
		return partnersDisable(ctx, args[1:], stdout, stderr)
	case "enable", "delete":
		return partnersEnableOrDelete(ctx, sub, args[1:], stdout, stderr)
	case "pause", "resume":
		return pauseOrResume(ctx, sub, args[1:], stdout, stderr)
	case "requeue":
		return partnersRequeue(ctx, args[1:], stdin, stdout, stderr)
	case "test":
		return partnersTest(ctx, args[1:], stdout, stderr)
	case "subscriptions":
		return partnersSubscriptions(ctx, args[1:], stdout, stderr)
	default:
		return fmt.Errorf("unknown subcommand %q: %s", sub, partnerSubcommands)
	}
}

// partnerSubcommands names the subcommands of streamops partners.
const partnerSubcommands = "pause, resume, requeue, test, subscriptions, create, update, rotate, disable, enable, delete"

// partnerState is the part of a partner's endpoint view that pause and
// resume print.
type partnerState struct {
	PartnerID   string     `json:"partnerId"`
	Paused      bool       `json:"paused"`
	PausedAt    *time.Time `json:"pausedAt"`
	PausedBy    string     `json:"pausedBy"`
	PauseReason string     `json:"pauseReason"`
	ResumedAt   *time.Time `json:"resumedAt"`
	ResumedBy   string     `json:"resumedBy"`
	Backlog     struct {
		Count            int     `json:"count"`
		OldestAgeSeconds float64 `json:"oldestAgeSeconds"`
	} `json:"backlog"`
}

// pauseOrResume pauses (sub "pause") or resumes one partner and prints
// what the API answered: the state and the backlog waiting.
func pauseOrResume(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) error {
	usage := "usage: streamops partners resume ID"
	if sub == "pause" {
		usage = "usage: streamops partners pause ID [-reason R]"
	}
	fs, newClient := newCommand("partners "+sub, usage, stderr)
	var reason *string
	if sub == "pause" {
		reason = fs.String("reason", "", "why, for the other operators (shown with the pause)")
	}
	// The id may come before the flags (partners pause acme -reason …).
	id, err := partnerIDArg(fs, args, usage)
	if err != nil {
		return err
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	var body any
	if reason != nil && *reason != "" {
		body = httpapi.PauseRequest{Reason: *reason}
	}
	var st partnerState
	if err := c.do(ctx, "POST", "/api/partners/"+url.PathEscape(id)+"/"+sub, nil, body, &st); err != nil {
		return fmt.Errorf("%s %s: %w", sub, id, err)
	}
	fmt.Fprintln(stdout, describePause(st))
	return nil
}

// describePause is one line saying whether st is paused, since when, by
// whom and why, and what waits.
func describePause(st partnerState) string {
	var b strings.Builder
	if st.Paused {
		fmt.Fprintf(&b, "%s is paused", st.PartnerID)
		if st.PausedAt != nil {
			fmt.Fprintf(&b, " since %s", st.PausedAt.UTC().Format(time.RFC3339))
		}
		if st.PausedBy != "" {
			fmt.Fprintf(&b, " by %s", st.PausedBy)
		}
		if st.PauseReason != "" {
			fmt.Fprintf(&b, " (%s)", st.PauseReason)
		}
		fmt.Fprintf(&b, ": %d deliveries wait", st.Backlog.Count)
	} else {
		fmt.Fprintf(&b, "%s is delivering", st.PartnerID)
		if st.ResumedAt != nil {
			fmt.Fprintf(&b, " (resumed %s by %s)", st.ResumedAt.UTC().Format(time.RFC3339), st.ResumedBy)
		}
		fmt.Fprintf(&b, ": %d deliveries waiting", st.Backlog.Count)
	}
	if st.Backlog.Count > 0 {
		fmt.Fprintf(&b, ", the oldest %s old", (time.Duration(st.Backlog.OldestAgeSeconds) * time.Second).String())
	}
	return b.String()
}

// partnerIDArg parses args with fs, the one partner id before or after the
// flags (partners pause acme -reason …).
func partnerIDArg(fs *flag.FlagSet, args []string, usage string) (string, error) {
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	id := fs.Arg(0)
	if id != "" {
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return "", err
		}
	}
	if id == "" || fs.NArg() > 0 {
		return "", fmt.Errorf("name one partner id (%s)", usage)
	}
	return id, nil
}
