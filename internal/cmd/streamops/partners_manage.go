package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/partners/partner"
)

// none, as a flag's value, clears what the flag sets (partners update).
const none = "none"

// endpointFlags are the flags of a partner's endpoint settings, shared by
// partners create and partners update.
type endpointFlags struct {
	name, endpoint, rateLimit, maxInFlight, clear, subscriptions *string
}

func newEndpointFlags(fs *flag.FlagSet, clearable bool) endpointFlags {
	or := ""
	if clearable {
		or = "; " + none + " clears it"
	}
	return endpointFlags{
		name:          fs.String("name", "", "the partner's name"),
		endpoint:      fs.String("endpoint", "", "the http(s) URL deliveries are POSTed to"),
		rateLimit:     fs.String("rate-limit", "", "deliveries per second (fractions allowed)"+or),
		maxInFlight:   fs.String("max-in-flight", "", "deliveries in flight at once"+or),
		clear:         fs.String("clear-personal-data", "", "comma-separated categories of personal data sent in clear (email,phone or all)"+or),
		subscriptions: fs.String("subscriptions", "", `the subscriptions as JSON: [{"eventTypes":["workflow.completed"],"filter":{"payload.name":"Nightly"}}]`+or),
	}
}

// parse parses args with fs: the partner id and the body of the flags
// given.
func (f endpointFlags) parse(fs *flag.FlagSet, args []string, usage string) (string, map[string]json.RawMessage, error) {
	id, err := partnerIDArg(fs, args, usage)
	if err != nil {
		return "", nil, err
	}
	body, err := f.body(fs)
	return id, body, err
}

// body is the JSON fields of the flags fs was given (all of them for a
// create), each with its API field name; none is null.
func (f endpointFlags) body(fs *flag.FlagSet) (map[string]json.RawMessage, error) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	out := map[string]json.RawMessage{}
	text := func(field, flagName, v string) {
		if set[flagName] {
			raw, _ := json.Marshal(v)
			out[field] = raw
		}
	}
	text("name", "name", *f.name)
	text("url", "endpoint", *f.endpoint)
	for _, n := range []struct {
		field, flag, v string
		integer        bool
	}{{"rateLimit", "rate-limit", *f.rateLimit, false}, {"maxInFlight", "max-in-flight", *f.maxInFlight, true}} {
		switch {
		case !set[n.flag]:
		case n.v == none:
			out[n.field] = json.RawMessage("null")
		case n.integer:
			if _, err := strconv.Atoi(n.v); err != nil {
				return nil, fmt.Errorf("-%s %q is not a whole number", n.flag, n.v)
			}
			out[n.field] = json.RawMessage(n.v)
		default:
			if _, err := strconv.ParseFloat(n.v, 64); err != nil {
				return nil, fmt.Errorf("-%s %q is not a number", n.flag, n.v)
			}
			out[n.field] = json.RawMessage(n.v)
		}
	}
	switch {
	case !set["clear-personal-data"]:
	case *f.clear == none:
		out["clearPersonalData"] = json.RawMessage("null")
	default:
		raw, _ := json.Marshal(strings.Split(*f.clear, ","))
		out["clearPersonalData"] = raw
	}
	switch {
	case !set["subscriptions"]:
	case *f.subscriptions == none:
		out["subscriptions"] = json.RawMessage("null")
	case !json.Valid([]byte(*f.subscriptions)):
		return nil, fmt.Errorf("-subscriptions is not JSON")
	default:
		out["subscriptions"] = json.RawMessage(*f.subscriptions)
	}
	return out, nil
}

// partnersCreate is `streamops partners create ID -endpoint URL […]`: it
// prints the partner and its signing secret, which the API shows this
// once.
func partnersCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := "usage: streamops partners create ID -endpoint URL [-name N] [-rate-limit R] [-max-in-flight M] [-clear-personal-data C] [-subscriptions JSON]"
	fs, newClient := newCommand("partners create", usage, stderr)
	f := newEndpointFlags(fs, false)
	id, body, err := f.parse(fs, args, usage)
	if err != nil {
		return err
	}
	body["id"], _ = json.Marshal(id)
	c, err := newClient()
	if err != nil {
		return err
	}
	var res httpapi.CreatedPartnerView
	if err := c.do(ctx, "POST", "/api/partners", nil, body, &res); err != nil {
		return fmt.Errorf("create %s: %w", id, err)
	}
	fmt.Fprintln(stdout, describeManaged(res.Partner.View))
	fmt.Fprint(stdout, describeSecret(res.Secret))
	return nil
}

// partnersUpdate is `streamops partners update ID [flags]`: only the flags
// given change (none clears a limit or a list); -version refuses the
// change if the partner changed since that version.
func partnersUpdate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := "usage: streamops partners update ID [-name N] [-endpoint URL] [-rate-limit R|none] [-max-in-flight M|none] [-clear-personal-data C|none] [-subscriptions JSON|none] [-version V]"
	fs, newClient := newCommand("partners update", usage, stderr)
	f := newEndpointFlags(fs, true)
	version := fs.Int("version", 0, "the version the change is made against (GET shows it); 0: the current one")
	id, body, err := f.parse(fs, args, usage)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return fmt.Errorf("nothing to change: give at least one of -name, -endpoint, -rate-limit, -max-in-flight, -clear-personal-data, -subscriptions (%s)", usage)
	}
	if *version > 0 {
		body["version"] = json.RawMessage(strconv.Itoa(*version))
	}
	return managedCall(ctx, newClient, "PATCH", id, "", body, "update", stdout)
}

// partnersRotate is `streamops partners rotate ID [-overlap 24h]`.
func partnersRotate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := "usage: streamops partners rotate ID [-overlap 24h]"
	fs, newClient := newCommand("partners rotate", usage, stderr)
	overlap := fs.String("overlap", "", "how long the older secrets keep signing beside the new one (0s: they stop at once); default 24h")
	id, err := partnerIDArg(fs, args, usage)
	if err != nil {
		return err
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	var body any
	if *overlap != "" {
		body = httpapi.RotateRequest{Overlap: overlap}
	}
	var res httpapi.RotatedSecretView
	if err := c.do(ctx, "POST", "/api/partners/"+url.PathEscape(id)+"/secrets/rotate", nil, body, &res); err != nil {
		return fmt.Errorf("rotate %s: %w", id, err)
	}
	fmt.Fprintln(stdout, describeManaged(res.Partner.View))
	fmt.Fprint(stdout, describeSecret(res.Secret))
	if res.OldSecretsStop != nil {
		fmt.Fprintf(stdout, "old       the older secrets sign until %s\n", res.OldSecretsStop.UTC().Format(time.RFC3339))
	}
	return nil
}

// partnersDisable is `streamops partners disable ID [-reason R]`.
func partnersDisable(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := "usage: streamops partners disable ID [-reason R]"
	fs, newClient := newCommand("partners disable", usage, stderr)
	reason := fs.String("reason", "", "why, for the other operators")
	id, err := partnerIDArg(fs, args, usage)
	if err != nil {
		return err
	}
	var body any
	if *reason != "" {
		body = httpapi.DisableRequest{Reason: *reason}
	}
	return managedCall(ctx, newClient, "POST", id, "/disable", body, "disable", stdout)
}

// partnersEnableOrDelete is `streamops partners enable ID` and
// `streamops partners delete ID` (which prints how many waiting
// deliveries it cancelled).
func partnersEnableOrDelete(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) error {
	usage := "usage: streamops partners " + sub + " ID"
	fs, newClient := newCommand("partners "+sub, usage, stderr)
	id, err := partnerIDArg(fs, args, usage)
	if err != nil {
		return err
	}
	if sub == "enable" {
		return managedCall(ctx, newClient, "POST", id, "/enable", nil, sub, stdout)
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	var res httpapi.DeletedPartnerView
	if err := c.do(ctx, "DELETE", "/api/partners/"+url.PathEscape(id), nil, nil, &res); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	fmt.Fprintf(stdout, "%s deleted: %d waiting deliveries cancelled (dead letters, last error %q)\n", id, res.Cancelled, "cancelled: partner deleted")
	return nil
}

// managedCall sends method /api/partners/{id}{suffix} with body and
// prints the partner it answers.
func managedCall(ctx context.Context, newClient func() (*client, error), method, id, suffix string, body any, what string, stdout io.Writer) error {
	c, err := newClient()
	if err != nil {
		return err
	}
	var res httpapi.ManagedPartnerView
	if err := c.do(ctx, method, "/api/partners/"+url.PathEscape(id)+suffix, nil, body, &res); err != nil {
		return fmt.Errorf("%s %s: %w", what, id, err)
	}
	fmt.Fprintln(stdout, describeManaged(res.View))
	return nil
}

// describeManaged is one line: the partner, its endpoint, version and
// whether it delivers.
func describeManaged(p partner.View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s version %d", p.ID, p.URL, p.Version)
	if p.Disabled {
		b.WriteString(": disabled")
		if p.DisabledBy != "" {
			fmt.Fprintf(&b, " by %s", p.DisabledBy)
		}
		if p.DisabledReason != "" {
			fmt.Fprintf(&b, " (%s)", p.DisabledReason)
		}
	} else {
		b.WriteString(": delivering")
	}
	live := 0
	for _, s := range p.Secrets {
		if s.NotAfter == nil || time.Now().Before(*s.NotAfter) {
			live++
		}
	}
	fmt.Fprintf(&b, ", %d live signing secret(s)", live)
	return b.String()
}

// describeSecret is the secret shown once, with a reminder that it is.
func describeSecret(s httpapi.SecretView) string {
	return fmt.Sprintf("secret    %s (id %s): shown this once, store it now\n", s.Value, s.ID)
}
