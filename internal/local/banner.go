package local

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/provider"
)

// SampleInvoiceFinalized is a Stripe invoice.finalized event with a fresh
// id (so each one is accepted, not a duplicate), created at now: the
// default providers.json routes invoice.* to the three-step "Invoice Sync"
// workflow.
func SampleInvoiceFinalized(now time.Time) []byte {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	return fmt.Appendf(nil, `{"id":"evt_local_%s","object":"event","type":"invoice.finalized","created":%d,`+
		`"livemode":false,"data":{"object":{"id":"in_local_%s","object":"invoice","amount_due":129900,`+
		`"currency":"usd","customer":"cus_local","status":"open"}}}`, id, now.Unix(), id)
}

// SignedCurl returns a curl command that POSTs body to baseURL's
// /webhooks/<provider> with the headers the provider would sign it with
// (provider.Provider.Sign), ready to paste into a POSIX shell. Providers
// that sign a timestamp (Stripe, Standard Webhooks) reject it once their
// tolerance (300 s) has passed.
func SignedCurl(baseURL string, p *provider.Provider, secret string, body []byte, opts provider.SignOptions) (string, error) {
	h, err := p.Sign(body, secret, opts)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS -i -X POST %s", shellQuote(baseURL+"/webhooks/"+p.Name))
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, v := range h[k] {
			fmt.Fprintf(&b, " \\\n  -H %s", shellQuote(http.CanonicalHeaderKey(k)+": "+v))
		}
	}
	fmt.Fprintf(&b, " \\\n  --data-raw %s", shellQuote(string(body)))
	return b.String(), nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// StripeCurl is SignedCurl for a fresh SampleInvoiceFinalized signed now
// with the stack's stripe secret; ok is false when no stripe provider is
// configured.
func (s *Stack) StripeCurl() (cmd string, ok bool, err error) {
	p, ok := s.providers.Provider("stripe")
	if !ok {
		return "", false, nil
	}
	now := time.Now()
	cmd, err = SignedCurl(s.URL(), p, s.WebhookSecret("stripe"), SampleInvoiceFinalized(now), provider.SignOptions{Now: now})
	return cmd, err == nil, err
}

// PrintBanner writes what a person needs to use the stack: the URLs, where
// the data lives, the admin token and a ready-to-paste signed curl.
// command is how to run the streamops command again ("build/streamops").
func (s *Stack) PrintBanner(w io.Writer, command string) error {
	kafka := strings.Join(s.brokers, ",")
	kafkaNote := "embedded kfake, data in " + s.cfg.DataDir + "/kafka"
	if s.cluster == nil {
		kafkaNote = "KAFKA_BROKERS"
	}
	storeNote := "embedded engine, " + s.cfg.StoreFile()
	if s.cfg.MongoURI != "" {
		storeNote = "MongoDB (MONGODB_URI), database " + s.cfg.Database
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nStreamOps local stack up in %s\n\n", s.ready.Round(time.Millisecond))
	fmt.Fprintf(&b, "  webhooks  POST %s/webhooks/{provider}   providers: %s\n", s.URL(), strings.Join(s.providers.Names(), ", "))
	fmt.Fprintf(&b, "  api       %s/api/…   OpenAPI: %s/api/openapi.json\n", s.URL(), s.URL())
	fmt.Fprintf(&b, "  console   %s/console   (paste the admin token below)\n", s.URL())
	fmt.Fprintf(&b, "  kafka     %s   (%s; kcat -b %s -L)\n", kafka, kafkaNote, kafka)
	fmt.Fprintf(&b, "  store     %s\n", storeNote)
	fmt.Fprintf(&b, "  schedules outbox-relay and retry-sweeper every %s, archiver %s\n\n", s.cfg.ScheduleInterval, s.cfg.archiverWhen())
	fmt.Fprintf(&b, "Admin token (every /api route):\n\n  export STREAMOPS_URL=%s STREAMOPS_ADMIN_TOKEN=%s\n\n", s.URL(), s.admin)
	if cmd, ok, err := s.StripeCurl(); err != nil {
		fmt.Fprintf(&b, "(no signed curl: %v)\n", err)
	} else if ok {
		fmt.Fprintf(&b, "A signed Stripe invoice.finalized, routed to the 3-step Invoice Sync workflow\n"+
			"(signed now: Stripe's 300 s tolerance rejects it after 5 minutes; `%s curl` prints a fresh one):\n\n%s\n\n", command, cmd)
	}
	fmt.Fprintf(&b, "Then watch it run (after the export above):  %s tail\n", command)
	fmt.Fprintf(&b, "Ctrl-C stops the stack; nothing it accepted is lost.\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}
