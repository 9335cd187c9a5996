package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/provider"
)

// runStack is `streamops run`: start the local stack, print the banner,
// and shut down cleanly on SIGINT or SIGTERM.
func runStack(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: streamops run [-rotate-pii-key]\n\nStarts the local stack; configured by the environment (docs/operations.md).")
		fs.PrintDefaults()
	}
	rotate := fs.Bool("rotate-pii-key", false, "add a generation to the personal-data key file and rewrap every data subject's key with it before serving")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := local.ConfigFromEnv()
	if err != nil {
		return err
	}
	cfg.RotatePIIKey = *rotate
	_, restore := local.TuneCollector(cfg)
	defer restore()
	stack, err := local.Start(ctx, cfg)
	if err != nil {
		return err
	}
	if err := stack.PrintBanner(stdout, selfCommand()); err != nil {
		return errors.Join(err, stack.Shutdown(context.Background()))
	}
	<-ctx.Done()
	fmt.Fprintln(stdout, "\nstopping: finishing requests and batches under way…")
	// Further Ctrl-Cs are ignored while the batches under way finish:
	// leaving now would lose nothing, but would redo them on the next
	// start (kill -9 still works).
	sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := stack.Shutdown(sctx); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "stopped.")
	return nil
}

// printCurl is `streamops curl [provider]`: a sample webhook signed now
// with the local stack's secret (WEBHOOK_SECRET_<PROVIDER>, or the one
// generated under the data directory) for its HTTP address.
func printCurl(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("curl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stackCfg, err := config.FromEnv[config.Local]()
	if err != nil {
		return err
	}
	url := fs.String("url", envOr("STREAMOPS_URL", "http://"+stackCfg.HTTPAddr), "base URL of the local stack")
	if err := fs.Parse(args); err != nil {
		return err
	}
	name := "stripe"
	if fs.NArg() > 0 {
		name = fs.Arg(0)
	}
	if name != "stripe" {
		return fmt.Errorf("only stripe has a sample event; sign others with provider.Provider.Sign")
	}
	providers, err := app.Providers(stackCfg.Providers)
	if err != nil {
		return err
	}
	p, ok := providers.Provider(name)
	if !ok {
		return fmt.Errorf("no provider %q is configured", name)
	}
	secret, err := local.WebhookSecret(stackCfg.DataDir, name, os.Getenv)
	if err != nil {
		return err
	}
	now := time.Now()
	cmd, err := local.SignedCurl(*url, p, secret, local.SampleInvoiceFinalized(now), provider.SignOptions{Now: now})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, cmd)
	return err
}

// selfCommand is how to run this command again: its path as invoked, or
// the go run line when it was built into a temporary directory by go run.
func selfCommand() string {
	self := os.Args[0]
	if strings.Contains(self, "go-build") || self == "" {
		return "go run ./internal/cmd/streamops"
	}
	return self
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
