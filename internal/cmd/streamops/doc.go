// Command streamops is StreamOps on a laptop: `streamops run` starts the
// whole system in one process (what `make run` does), and the other
// subcommands are the operations client of the API, for the local stack or
// a deployed one:
//
//	streamops run                     the local stack (internal/local)
//	streamops soak [-duration 10m]    the local stack under sustained webhooks, a row a minute (internal/loadprobe)
//	streamops curl [provider]         a freshly signed sample webhook for the local stack
//	streamops tail [filter flags]     follow GET /api/events
//	streamops replay [filter flags]   dry run, confirm, POST /api/replays, follow its progress
//	streamops replay status|cancel ID GET /api/replays/{id}, POST /api/replays/{id}/cancel
//	streamops replay list             GET /api/replays
//	streamops dead-letters [list]     GET /api/dead-letters
//	streamops dead-letters requeue ID POST /api/dead-letters/{id}/requeue (or -all)
//	streamops outbox show ID          GET /api/outbox/{id}, its delivery log as a table
//	streamops outbox requeue ID       POST /api/outbox/{id}/requeue
//	streamops outbox resend ID        POST /api/outbox/{id}/resend
//	streamops partners create ID …    POST /api/partners: prints the signing secret once
//	streamops partners update ID …    PATCH /api/partners/{id}: the flags given only
//	streamops partners rotate ID      POST /api/partners/{id}/secrets/rotate
//	streamops partners disable|enable POST /api/partners/{id}/disable, …/enable
//	streamops partners delete ID      DELETE /api/partners/{id}: the waiting deliveries cancelled
//	streamops partners requeue ID     POST /api/partners/{id}/requeue: count, ask, confirm
//	streamops rerun [-from-step S] WF  POST /api/workflows/{id}/rerun: a new attempt
//	streamops trace [-json] TRACE_ID  GET /api/traces/{traceId}, printed as a tree
//	streamops subjects erase -email X POST /api/subjects/erase (or -phone, -subject): the receipt
//	streamops subjects show ID        GET /api/subjects/{id}: what is held, never a value
//	streamops stats [-window 1h]      GET /api/stats
//	streamops openapi                 the OpenAPI document GET /api/openapi.json serves
//
// The client subcommands take -url and -token (env STREAMOPS_URL,
// STREAMOPS_ADMIN_TOKEN) and speak only the API's HTTP and JSON, so they
// work the same against a deployed API; answers are read into the API's
// own response types (httpapi.DeadLetterResponse, httpapi.ReplayResponse,
// traceview.View, vault.Receipt),
// never the store's documents. What must not live here: the stack itself
// (internal/local) and anything the API decides.
package main
