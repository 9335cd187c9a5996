package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/vault"
)

// subjectsCmd is `streamops subjects erase (-email X | -phone X | -subject
// ID)` and `streamops subjects show ID`: a data subject's erasure (GDPR
// Art. 17, CCPA deletion) and what is held for one (an access request).
func subjectsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("name a subcommand: erase, show")
	}
	switch sub := args[0]; sub {
	case "erase":
		return eraseSubject(ctx, args[1:], stdout, stderr)
	case "show":
		return showSubject(ctx, args[1:], stdout, stderr)
	default:
		return fmt.Errorf("unknown subcommand %q: erase, show", sub)
	}
}

// errOneSubject refuses an erase that names no subject, or more than one
// way: the API would refuse it too, but an erasure is not something to
// send half-specified.
var errOneSubject = errors.New("name the subject by exactly one of -email, -phone or -subject")

// eraseSubject is POST /api/subjects/erase: it prints the receipt, or with
// -json the API's answer as it is.
func eraseSubject(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("subjects erase",
		"usage: streamops subjects erase (-email ADDRESS | -phone NUMBER | -subject ID) [-json]", stderr)
	email := fs.String("email", "", "the subject's email address")
	phone := fs.String("phone", "", "the subject's phone number")
	subject := fs.String("subject", "", "the subject id (streamops subjects show, or a receipt)")
	asJSON := fs.Bool("json", false, "print the receipt as the API answers it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	req := vault.Request{Email: strings.TrimSpace(*email), Phone: strings.TrimSpace(*phone), SubjectID: strings.TrimSpace(*subject)}
	if req.Named() != 1 || fs.NArg() > 0 {
		return errOneSubject
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := c.do(ctx, "POST", "/api/subjects/erase", nil, req, &raw); err != nil {
		return err
	}
	if *asJSON {
		_, err := fmt.Fprintf(stdout, "%s\n", raw)
		return err
	}
	var rc vault.Receipt
	if err := json.Unmarshal(raw, &rc); err != nil {
		return fmt.Errorf("POST /api/subjects/erase: the answer is not a receipt: %w", err)
	}
	printReceipt(stdout, rc)
	return nil
}

// printReceipt writes rc: the receipt's id, when, by whom and what was
// asked, then each subject erased with what it held. It names no personal
// datum (the receipt holds none).
func printReceipt(w io.Writer, rc vault.Receipt) {
	if rc.Repeated {
		fmt.Fprintln(w, "already erased: the first receipt")
	}
	fmt.Fprintf(w, "receipt %s: erased %s by %s (named by %s)\n", rc.ReceiptID, rc.ErasedAt.UTC().Format(time.RFC3339), rc.ErasedBy, rc.Request)
	if len(rc.Subjects) == 0 {
		fmt.Fprintln(w, "nothing was held for this subject.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBJECT\tGENERATION\tHELD\tPLACES")
	for _, s := range rc.Subjects {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", s.SubjectID, s.Generation, counts(s.Held), counts(s.Places))
	}
	_ = tw.Flush()
}

// showSubject is POST /api/subjects/lookup: what is held for each subject
// an email, a phone number or a subject id reaches. The address goes in
// the body, never in a URL (URLs are logged).
func showSubject(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("subjects show", "usage: streamops subjects show [-json] EMAIL|PHONE|SUBJECT_ID", stderr)
	asJSON := fs.Bool("json", false, "print the answer as the API gives it")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 || strings.TrimSpace(fs.Arg(0)) == "" {
		return fmt.Errorf("name one subject: an email address, a phone number or a subject id")
	}
	var raw json.RawMessage
	if err := c.do(ctx, "POST", "/api/subjects/lookup", nil, vault.RequestFor(fs.Arg(0)), &raw); err != nil {
		return err
	}
	if *asJSON {
		_, err := fmt.Fprintf(stdout, "%s\n", raw)
		return err
	}
	var v httpapi.SubjectsView
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("POST /api/subjects/lookup: the answer is not the expected JSON: %w", err)
	}
	printSubjects(stdout, v.Subjects)
	return nil
}

// printSubjects writes what is held for each subject: counts, places,
// resolutions and erasures, never a value.
func printSubjects(w io.Writer, subs []vault.SubjectInfo) {
	if len(subs) == 0 {
		fmt.Fprintln(w, "nothing is held for this subject.")
		return
	}
	for i, s := range subs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		state := "live"
		if !s.Live {
			state = "erased"
		}
		fmt.Fprintf(w, "subject %s  generation %d  %s\n", s.SubjectID, s.Generation, state)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  held\t%s\n", counts(s.Held))
		fmt.Fprintf(tw, "  places\t%s\n", counts(s.Places))
		fmt.Fprintf(tw, "  first seen\t%s\n", fmtTime(s.CreatedAt))
		fmt.Fprintf(tw, "  last seen\t%s\n", fmtTime(s.LastSeenAt))
		if s.ExpireAt != nil {
			fmt.Fprintf(tw, "  key expires\t%s\n", fmtTime(*s.ExpireAt))
		}
		fmt.Fprintf(tw, "  resolutions\t%d\n", s.Resolutions)
		if len(s.Erasures) == 0 {
			fmt.Fprintf(tw, "  erasures\tnone\n")
		}
		for _, e := range s.Erasures {
			fmt.Fprintf(tw, "  erased\t%s by %s, generation %d, receipt %s\n", fmtTime(e.ErasedAt), e.ErasedBy, e.Generation, e.ReceiptID)
		}
		_ = tw.Flush()
	}
}

// counts is a map of counts as "k n, k n", keys in order, or "none".
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// fmtTime is t in UTC as RFC 3339, or "-" when it is zero.
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
