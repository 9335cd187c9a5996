package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"time"

	"github.com/streamops/streamops/internal/loadprobe"
	"github.com/streamops/streamops/internal/local"
)

// soak is `streamops soak` (make soak): the local stack, in this process,
// under a sustained rate of signed webhooks, half of them partner orders
// whose workflow delivers to a partner endpoint the command serves, with
// a row a minute of what the stack came to (loadprobe.Soak).
func soak(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: streamops soak [-duration 10m] [-rate 20] [-interval 1m] [-senders 8] [-dir DIR] [-pprof ADDR]\n\n"+
			"Runs the local stack (configured by the environment, as streamops run: retention, MONGODB_URI, …) under a sustained\n"+
			"rate of signed webhooks, alternately Stripe invoices (Invoice Sync) and acme orders (Partner Order Sync, delivered\n"+
			"to a partner endpoint this command serves), and prints a row per interval: throughput, p50/p99, errors, partner\n"+
			"deliveries, RSS, data size and documents per collection; the last line says whether they stayed flat and bounded.")
		fs.PrintDefaults()
	}
	duration := fs.Duration("duration", envDuration("SOAK_DURATION", 10*time.Minute), "how long to soak (env SOAK_DURATION)")
	rate := fs.Float64("rate", envFloat("SOAK_RATE", 20), "signed webhooks per second (env SOAK_RATE)")
	interval := fs.Duration("interval", envDuration("SOAK_INTERVAL", time.Minute), "one row per interval (env SOAK_INTERVAL)")
	senders := fs.Int("senders", loadprobe.DefaultSenders, "deliveries in flight at most")
	dir := fs.String("dir", os.Getenv("SOAK_DIR"), "data directory of the stack (env SOAK_DIR); default a temporary one, removed after")
	pprofAddr := fs.String("pprof", os.Getenv("SOAK_PPROF"), "serve Go's profiles (/debug/pprof/) on this address while soaking, to see what a slow minute spends its time on (env SOAK_PPROF)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rate <= 0 || *duration <= 0 || *interval <= 0 {
		return errors.New("-rate, -duration and -interval must be positive")
	}
	cfg, err := local.ConfigFromEnv()
	if err != nil {
		return err
	}
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "streamops-soak-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		*dir = tmp
	}
	if *pprofAddr != "" {
		stop, err := serveProfiles(*pprofAddr, stdout)
		if err != nil {
			return err
		}
		defer stop()
	}
	partner, err := loadprobe.StartPartner()
	if err != nil {
		return err
	}
	defer partner.Close()
	if cfg.PartnersFile, err = partner.WritePartnersFile(*dir); err != nil {
		return err
	}
	partnerSecret := "whsec_" + base64.StdEncoding.EncodeToString([]byte(rand.Text()))
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg.Getenv = func(k string) string {
		if v := getenv(k); v != "" || k != "PARTNER_SECRET_ACME" {
			return v
		}
		return partnerSecret
	}
	// Ports of its own, so a make run beside it is undisturbed; the logs
	// at warn, so they do not fill the terminal or the data size.
	cfg.DataDir, cfg.HTTPAddr, cfg.KafkaAddr = *dir, "127.0.0.1:0", "127.0.0.1:0"
	if os.Getenv("STREAMOPS_LOG_LEVEL") == "" {
		cfg.LogLevel = "warn"
	}
	_, restore := local.TuneCollector(cfg)
	defer restore()
	stack, err := local.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer stack.Shutdown(context.Background())
	stripe, err := loadprobe.StripeInvoices(stack.Providers(), stack.WebhookSecret("stripe"))
	if err != nil {
		return err
	}
	acme, err := loadprobe.AcmeOrders(stack.Providers(), stack.WebhookSecret("acme"))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "soak: %s at %g webhooks/s (%d senders, Stripe invoices and acme orders delivered to %s), data in %s, a row every %s\n",
		*duration, *rate, *senders, partner.URL(), *dir, *interval)
	s := loadprobe.Soak{
		Probe: &loadprobe.Probe{BaseURL: stack.URL(), Kinds: []loadprobe.Kind{stripe, acme}, Senders: *senders, Rate: *rate},
		Store: stack.Store(), DataDir: *dir, Partner: partner, Duration: *duration, Interval: *interval,
	}
	_, err = s.Run(ctx, stdout)
	return err
}

// serveProfiles serves net/http/pprof's handlers on addr until stop, and
// says where on out.
func serveProfiles(addr string, out io.Writer) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(out, "soak: Go's profiles at http://%s/debug/pprof/\n", ln.Addr())
	return func() { _ = srv.Close() }, nil
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

func envFloat(name string, def float64) float64 {
	if f, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return f
	}
	return def
}
