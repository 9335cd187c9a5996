package handlers

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/archive"
	"github.com/streamops/streamops/internal/console"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/task"
)

// ScheduledHandler handles one EventBridge Scheduler invocation
// (outbox-relay, retry-sweeper, archiver).
type ScheduledHandler = func(context.Context, lambdaevents.EventBridgeEvent) error

// Webhook is the webhook function: POST /webhooks/{provider} for the
// providers of reg, signatures checked against secrets. The webhook
// function's own main wires the same without this package, whose imports
// (every function's dependencies) would grow its bootstrap; the local
// stack uses this.
func Webhook(a *app.App, reg *provider.Registry, secrets provider.SecretSource) (http.Handler, error) {
	svc, err := ingest.New(ingest.Config{Providers: reg, Secrets: secrets,
		Store: a.Store, Emitter: a.Emitter, Logger: a.Logger, Metrics: a.Metrics})
	if err != nil {
		return nil, err
	}
	return httpapi.Webhooks(svc, a.Logger), nil
}

// APIOptions are the api function's settings.
type APIOptions struct {
	// Providers route stored webhook events again (POST
	// /api/webhook-events/{id}/retry).
	Providers *provider.Registry
	// Partners are the partner endpoints of the partners file (as the
	// outbox relay loads them), shown by GET /api/partners with the
	// partners of Providers.
	Partners map[string]outbox.Partner
	// Objects receives exports too large to answer inline.
	Objects objects.Store
	// Auth names the caller of every route but the OpenAPI document.
	Auth httpapi.Authenticator
}

// Auth is the api function's authenticator: the JWT claims API Gateway's
// authorizer verified, else the bearer tokens of tokens
// (STREAMOPS_ADMIN_TOKEN, STREAMOPS_ADMIN_TOKENS, STREAMOPS_PARTNER_TOKENS),
// each a named principal. A malformed token list is an error: the function
// refuses to start rather than admit a token under the wrong name.
func Auth(tokens httpapi.TokenConfig) (httpapi.Authenticator, error) {
	auth, err := httpapi.ParseTokens(tokens)
	if err != nil {
		return nil, err
	}
	return httpapi.Authenticators{apigw.JWTAuth{}, auth}, nil
}

// TokensFromEnv is the bearer-token configuration of the environment.
func TokensFromEnv() httpapi.TokenConfig {
	return httpapi.TokenConfig{AdminToken: os.Getenv("STREAMOPS_ADMIN_TOKEN"), AdminTokens: os.Getenv("STREAMOPS_ADMIN_TOKENS"),
		PartnerTokens: os.Getenv("STREAMOPS_PARTNER_TOKENS")}
}

// API is the api function: everything under /api, and the operations
// console under /console (static files; its data comes from /api).
func API(a *app.App, o APIOptions) (http.Handler, error) {
	rt, err := router(a, o.Providers)
	if err != nil {
		return nil, err
	}
	limits, err := submit.LimitsFromEnv()
	if err != nil {
		return nil, err
	}
	sub, err := submit.New(a.Store, a.Emitter, limits, nil, a.Logger)
	if err != nil {
		return nil, err
	}
	api := httpapi.API(httpapi.APIConfig{
		Submit:   sub,
		Store:    a.Store,
		Replayer: &history.Replayer{Store: a.Store, Emitter: a.Emitter, Logger: a.Logger},
		Exporter: &history.Exporter{Store: a.Store, Objects: o.Objects, Logger: a.Logger},
		Router:   rt,
		Requeuer: &history.Requeuer{Store: a.Store, Publisher: a.Bus},
		Partners: partnerConfigs(o.Partners, o.Providers),
		Auth:     o.Auth,
		Logger:   a.Logger,
	})
	mux := http.NewServeMux()
	ui := console.Handler()
	mux.Handle(console.Base, ui)
	mux.Handle(console.Base+"/", ui)
	mux.Handle("/", api)
	return mux, nil
}

// partnerConfigs is what the configuration says about each partner: its
// delivery endpoint from the partners file, the providers whose
// deliveries are its inbound events from the providers file. The name is
// the partners file's, else the provider's partnerName.
func partnerConfigs(partners map[string]outbox.Partner, providers *provider.Registry) map[string]httpapi.PartnerConfig {
	out := map[string]httpapi.PartnerConfig{}
	for id, p := range partners {
		out[id] = httpapi.PartnerConfig{ID: id, Name: p.Name, URL: p.URL}
	}
	if providers == nil {
		return out
	}
	for _, name := range providers.Names() {
		pv, _ := providers.Provider(name)
		if pv.Partner == nil {
			continue
		}
		c := out[pv.Partner.PartnerID]
		c.ID = pv.Partner.PartnerID
		if c.Name == "" {
			c.Name = pv.Partner.PartnerName
		}
		c.Webhooks = append(c.Webhooks, httpapi.PartnerWebhook{Provider: name, SignatureScheme: string(pv.Signature.Scheme)})
		out[c.ID] = c
	}
	return out
}

// EnvSchedulePeriod names the period of the schedule that invokes the
// outbox relay, a Go duration such as 1m0s: the CDK stack sets it from the
// schedule's own period, the local stack from STREAMOPS_SCHEDULE_INTERVAL.
const EnvSchedulePeriod = "STREAMOPS_SCHEDULE_PERIOD"

// SchedulePeriod reads EnvSchedulePeriod; unset is zero (each run
// delivers what is due and returns).
func SchedulePeriod() (time.Duration, error) { return durationEnv(EnvSchedulePeriod) }

// OutboxRelay is the outbox-relay function, delivering to partners signed
// with secrets. period is its schedule's period: each run serves until
// shortly before the next one (outbox.Config.Period), so retries go out
// on seed 000's schedule whatever the period.
func OutboxRelay(a *app.App, partners map[string]outbox.Partner, secrets provider.SecretSource, period time.Duration) (ScheduledHandler, error) {
	relay, err := outbox.New(outbox.Config{
		Store: a.Store, Kafka: outbox.KafkaDeliverer{Publisher: a.Bus},
		Partners: partners, PartnerDeliverer: outbox.PartnerDeliverer{Secrets: secrets},
		Period: period, Logger: a.Logger, Metrics: a.Metrics,
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ev lambdaevents.EventBridgeEvent) error {
		_, err := relay.Serve(ctx, ev.Time)
		return err
	}, nil
}

// RetrySweeper is the retry-sweeper function; providers route the webhook
// events it finds failed or stranded.
func RetrySweeper(a *app.App, providers *provider.Registry) (ScheduledHandler, error) {
	rt, err := router(a, providers)
	if err != nil {
		return nil, err
	}
	retrier, err := task.NewRetrier(a.Store, a.Bus, a.Emitter, a.Logger)
	if err != nil {
		return nil, err
	}
	stallAfter, err := durationEnv("STREAMOPS_SWEEP_STALL_AFTER")
	if err != nil {
		return nil, err
	}
	giveUpAfter, err := durationEnv("STREAMOPS_SWEEP_GIVE_UP_AFTER")
	if err != nil {
		return nil, err
	}
	sweeper, err := sweep.New(sweep.Config{Store: a.Store, Publisher: a.Bus, Router: rt, Tasks: retrier,
		StallAfter: stallAfter, GiveUpAfter: giveUpAfter, Logger: a.Logger, Metrics: a.Metrics})
	if err != nil {
		return nil, err
	}
	return scheduled(sweeper.Run), nil
}

// Archiver is the archiver function.
func Archiver(a *app.App) (ScheduledHandler, error) {
	archiver, err := archive.New(archive.Config{Store: a.Store, Logger: a.Logger, Metrics: a.Metrics})
	if err != nil {
		return nil, err
	}
	return scheduled(archiver.Run), nil
}

// router routes stored webhook events again (the api's retry route, the
// retry-sweeper). Their signatures were checked when they arrived, so it
// verifies nothing and needs no secrets.
func router(a *app.App, providers *provider.Registry) (*ingest.Service, error) {
	return ingest.New(ingest.Config{Providers: providers, Secrets: provider.EnvSecrets{},
		Store: a.Store, Emitter: a.Emitter, Logger: a.Logger, Metrics: a.Metrics})
}

// scheduled adapts a scheduled job's Run to the EventBridge invocation.
func scheduled[R any](run func(context.Context) (R, error)) ScheduledHandler {
	return func(ctx context.Context, _ lambdaevents.EventBridgeEvent) error {
		_, err := run(ctx)
		return err
	}
}

// durationEnv reads a Go duration such as 10m from the environment; unset
// is zero (the default).
func durationEnv(name string) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("handlers: %s=%q is not a positive Go duration such as 10m", name, v)
	}
	return d, nil
}
