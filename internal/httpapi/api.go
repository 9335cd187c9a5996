package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/workflow"
)

// maxAPIBody caps a request body.
const maxAPIBody = 1 << 20

// WebhookRouter routes a stored webhook event again (ingest.Service), as
// asked by the principal userID, whose id the execution it starts carries,
// or starts a new attempt of one whose run reached its end.
type WebhookRouter interface {
	RouteAs(ctx context.Context, ev store.WebhookEvent, userID string) error
	NewAttempt(ctx context.Context, eventID string, req ingest.AttemptRequest, by submit.Caller) (store.WebhookEvent, error)
}

// APIConfig wires the /api routes.
type APIConfig struct {
	Submit   *submit.Service
	Store    *store.Store
	Replayer *history.Replayer
	Exporter *history.Exporter
	// Router retries webhook events (POST /api/webhook-events/{id}/retry).
	Router WebhookRouter
	// Requeuer sends dead letters back to their topics.
	Requeuer *history.Requeuer
	// Partners are the configured partners by id, shown with their
	// endpoint state (GET /api/partners). Default none: partners are then
	// known only from the store.
	Partners map[string]PartnerConfig
	// Subscriptions are the partners' subscriptions, as the store's
	// fan-out reads them (POST /api/partners/{partnerId}/subscriptions/test
	// without one in the body, POST /api/replays with a partnerId). nil:
	// no partner is known to hold any.
	Subscriptions fanout.Directory
	// Operations emits the operational events of the API's actions
	// (partner.paused, partner.resumed, subject.erased). nil: none.
	Operations *opsevents.Emitter
	// Sender sends POST /api/partners/{partnerId}/test's example event
	// (handlers.PartnerTester: the relay's deliverer with the partners'
	// signing secrets). nil:
	// that route answers that it cannot send.
	Sender PartnerSender
	// Registry manages the partners kept in the store (POST, GET, PATCH,
	// DELETE /api/partners…, rotate, disable, enable); GET /api/partners
	// shows them too. nil (no vault to seal their secrets with): those
	// routes answer 501 no_vault.
	Registry PartnerRegistry
	// Subjects erases and looks up data subjects (POST
	// /api/subjects/erase, GET /api/subjects/{id}). nil: those routes
	// answer that there is no vault.
	Subjects Subjects
	// Auth identifies callers; every route but /api/openapi.json needs one.
	Auth Authenticator
	// RequestID is the request id of API Gateway (apigw.RequestID): the
	// correlation id of a request that brings no valid X-Correlation-Id.
	// Nil: such a request has none.
	RequestID func(context.Context) string
	Logger    *slog.Logger
}

// API serves everything under /api: submissions, the event history and
// the operations routes, behind bearer-token auth.
func API(cfg APIConfig) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	a := &api{cfg: cfg, log: cfg.Logger}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/openapi.json", a.openAPI)
	admin, any := a.authorized(true), a.authorized(false)
	own := a.own(any)
	mux.Handle("POST /api/workflows", admin(submitRoute(a, cfg.Submit.SubmitWorkflow)))
	mux.Handle("GET /api/workflows/{id}", admin(getByID(a, "workflow", cfg.Store.GetWorkflow, workflowView)))
	mux.Handle("POST /api/workflows/{id}/rerun", admin(a.rerunWorkflow))
	mux.Handle("POST /api/tasks", admin(submitRoute(a, cfg.Submit.SubmitTask)))
	mux.Handle("GET /api/tasks/{id}", admin(getByID(a, "task", cfg.Store.GetTask, toTask)))
	mux.Handle("GET /api/events", any(a.browseEvents))
	mux.Handle("GET /api/events/search", any(a.searchEvents))
	mux.Handle("GET /api/events/export", any(a.exportEvents))
	a.replayRoutes(mux, admin)
	mux.Handle("GET /api/webhook-events", admin(a.listWebhookEvents()))
	mux.Handle("POST /api/webhook-events/{id}/retry", admin(a.retryWebhookEvent))
	mux.Handle("GET /api/partners/{partnerId}/events", any(a.partnerEvents()))
	mux.Handle("GET /api/partners/{partnerId}/endpoint", any(a.partnerEndpoint()))
	mux.Handle("GET /api/partners", any(a.listPartners))
	mux.Handle("POST /api/partners/{partnerId}/test", own(a.testPartner))
	mux.Handle("GET /api/event-types", any(a.listEventTypes))
	a.pauseRoutes(mux, admin)
	a.managedPartnerRoutes(mux, admin, own)
	mux.Handle("GET /api/stats", admin(a.stats))
	mux.Handle("GET /api/me", any(a.me))
	a.deadLetterRoutes(mux, admin)
	a.outboxRoutes(mux, admin, any, own)
	a.traceRoutes(mux, admin)
	a.subjectRoutes(mux, admin)
	a.subscriptionRoutes(mux, own)
	return withCorrelation(withNotFound(mux, func(w http.ResponseWriter, r *http.Request) bool {
		if _, ok := a.authenticate(r); !ok {
			writeError(w, r, a.log, ErrUnauthenticated)
			return false
		}
		return true
	}), cfg.RequestID)
}

type api struct {
	cfg APIConfig
	log *slog.Logger
}

type principalKey struct{}

// handlerFunc is a route that knows its caller.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p Principal)

// authorized wraps routes: 401 without a known token, 403 for a partner
// token on an admin-only route, 400 for an enumerated query parameter out
// of its enum (checkQueryEnums). The token itself is never logged.
func (a *api) authorized(adminOnly bool) func(handlerFunc) http.Handler {
	return func(h handlerFunc) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := a.authenticate(r)
			switch {
			case !ok:
				writeError(w, r, a.log, ErrUnauthenticated)
			case !p.Admin && a.aliasOf(p.PartnerID) != "":
				writeError(w, r, a.log, fmt.Errorf("%w: this token is scoped to %q, the webhook provider of partner %q: a partner's token carries its partnerId %q",
					ErrForbidden, p.PartnerID, a.aliasOf(p.PartnerID), a.aliasOf(p.PartnerID)))
			case adminOnly && !p.Admin:
				writeError(w, r, a.log, fmt.Errorf("%w: partner tokens may read only /api/events and /api/partners/%s/…", ErrForbidden, p.PartnerID))
			default:
				if err := checkQueryEnums(r); err != nil {
					writeError(w, r, a.log, err)
					return
				}
				h(w, r, p)
			}
		})
	}
}

// own wraps a route on one partner ({partnerId}) for an admin
// token or that partner's own: another partner's token is 403, whatever
// the route would answer (a partner cannot learn whether another exists).
func (a *api) own(any func(handlerFunc) http.Handler) func(handlerFunc) http.Handler {
	return func(h handlerFunc) http.Handler {
		return any(func(w http.ResponseWriter, r *http.Request, p Principal) {
			if err := ownPartner(p, r.PathValue("partnerId")); err != nil {
				writeError(w, r, a.log, err)
				return
			}
			h(w, r, p)
		})
	}
}

// authenticate names the caller; false without a known token (or without
// an Authenticator configured).
func (a *api) authenticate(r *http.Request) (Principal, bool) {
	if a.cfg.Auth == nil {
		return Principal{}, false
	}
	return a.cfg.Auth.Authenticate(r)
}

// actOnID answers POST …/{id}/<action>: act, as the caller, on what load
// finds, then
// 202 with it as it is after (loaded again by its id), shown through
// view; an unknown id is 404 naming the kind of resource. A non-nil trace
// names the trace the action's work continues (X-Trace-Id).
func actOnID[T, V any](a *api, kind string, load func(context.Context, string) (T, error), id func(T) string,
	act func(context.Context, Principal, T) error, view func(T) V, trace func(T) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p Principal) {
		v, err := load(r.Context(), r.PathValue("id"))
		if err == nil {
			err = act(r.Context(), p, v)
		}
		if err == nil {
			v, err = load(r.Context(), id(v))
		}
		if err != nil {
			writeError(w, r, a.log, fmt.Errorf("%s %q: %w", kind, r.PathValue("id"), err))
			return
		}
		if trace != nil {
			answerTrace(w, r, trace(v))
		}
		writeJSON(w, http.StatusAccepted, view(v))
	}
}

// submitRoute answers POST /api/workflows and POST /api/tasks: the body,
// read strictly (decodeBody), goes to submit with the caller's principal,
// the Idempotency-Key header and the correlation id, and its receipt is
// the 201, naming the trace of the work (a repeated submission's is the
// first one's).
func submitRoute[Req any, Receipt interface{ Trace() string }](a *api,
	submitReq func(ctx context.Context, req Req, by submit.Caller) (Receipt, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p Principal) {
		var req Req
		if err := decodeBody(w, r, &req); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		receipt, err := submitReq(r.Context(), req, caller(r, p))
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		answerTrace(w, r, receipt.Trace())
		writeJSON(w, http.StatusCreated, receipt)
	}
}

// getByID answers GET …/{id} with what load finds, shown through view; an
// unknown id is 404 naming the kind of resource.
func getByID[T, V any](a *api, kind string, load func(context.Context, string) (T, error), view func(T) V) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, _ Principal) {
		v, err := load(r.Context(), r.PathValue("id"))
		if err != nil {
			writeError(w, r, a.log, fmt.Errorf("%s %q: %w", kind, r.PathValue("id"), err))
			return
		}
		writeJSON(w, http.StatusOK, view(v))
	}
}

// caller is who submits r: its principal, Idempotency-Key and
// correlation id.
func caller(r *http.Request, p Principal) submit.Caller {
	return submit.Caller{UserID: p.ID, IdempotencyKey: r.Header.Get("Idempotency-Key"), CorrelationID: requestCorrelation(r)}
}

// rerunWorkflow answers POST /api/workflows/{id}/rerun: an optional body
// {"fromStep": …} and the Idempotency-Key header go to
// submit.Service.RerunWorkflow; 202 with the workflow on its new attempt,
// whose trace (the workflow's) X-Trace-Id names.
func (a *api) rerunWorkflow(w http.ResponseWriter, r *http.Request, p Principal) {
	var req submit.RerunRequest
	if err := decodeOptionalBody(w, r, &req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	id := r.PathValue("id")
	doc, err := a.cfg.Submit.RerunWorkflow(r.Context(), id, req, caller(r, p))
	if err != nil {
		writeError(w, r, a.log, fmt.Errorf("workflow %q: %w", id, err))
		return
	}
	answerTrace(w, r, doc.TraceID)
	writeJSON(w, http.StatusAccepted, workflowView(doc))
}

// decodeOptionalBody is decodeBody for a route whose body may be left
// out: an empty body leaves v as it is.
func decodeOptionalBody(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAPIBody))
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return decodeBody(w, r, v)
}

// decodeBody reads a JSON request body strictly: unknown fields and
// trailing data are errors, so a typo is reported rather than ignored.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAPIBody))
	if err != nil {
		return err
	}
	if err := jsonbody.Check(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var maxBytes *http.MaxBytesError
		if errors.As(err, &maxBytes) {
			return err
		}
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			return &bodyFieldError{Field: typ.Field, err: fmt.Errorf("%w: %v", errBadJSON, err)}
		}
		return fmt.Errorf("%w: %v", errBadJSON, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: unexpected data after the JSON object", errBadJSON)
	}
	return nil
}

// workflowView is the workflow with the progress of each step, as the
// workflow domain decides it (workflow.State.StepStatus).
func workflowView(doc store.Workflow) WorkflowResponse {
	out, wf := toWorkflow(doc), workflow.FromDocument(doc)
	out.Progress = make([]stepView, len(wf.Steps))
	for i, name := range wf.Steps {
		sv := stepView{Name: name, Index: i, Status: wf.StepStatus(i)}
		if sv.Status == workflow.StepCompleted {
			sv.Result = &out.StepResults[i]
		}
		out.Progress[i] = sv
	}
	return out
}
