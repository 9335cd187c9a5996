package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/streamops/streamops/internal/httpapi"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usage is the command's help.
const usage = `usage: streamops <command> [flags]

  run                         start the local stack (make run)
  soak [-duration D] [-rate R] the local stack under sustained signed webhooks with partner deliveries, a row a minute (make soak)
  curl [provider]             print a freshly signed sample webhook curl for the local stack (default stripe)
  tail                        follow the event history (GET /api/events)
  replay                      replay events: a dry run, confirm, then follow the job's progress (-detach)
  replay status [-watch] ID   a replay session's progress, once or followed
  replay cancel ID            cancel a running replay session
  replay list                 the recent replay sessions
  dead-letters [list]         list dead letters
  dead-letters requeue ID…    requeue dead letters (or -all with filters, after asking)
  outbox show ID              one outbox entry and its delivery log, as a table
  outbox requeue ID…          requeue dead-lettered outbox entries: a new round of attempts each
  outbox resend ID…           send completed outbox entries again: a new round each
  partners create ID -endpoint URL [-name N] [-rate-limit R] [-max-in-flight M] [-subscriptions JSON]
                              create a partner kept in the store; prints its signing secret once
  partners update ID [-endpoint URL] [-name N] [-rate-limit R|none] [-max-in-flight M|none] [-version V] …
                              change the settings given, at once on every relay
  partners rotate ID [-overlap 24h]
                              a new signing secret, shown once; the old ones sign beside it for the overlap
  partners disable ID [-reason R], partners enable ID
                              stop every delivery to a partner (its entries wait), and resume them
  partners delete ID          delete a partner (its history kept); cancels and counts its waiting deliveries
  partners requeue ID [-event-type T] [-since T] [-until T] [-yes]
                              requeue a partner's dead letters after their count (asks, or -yes)
  partners pause ID [-reason R]
                              hold every delivery to a partner until it is resumed
  partners resume ID          let a paused partner's deliveries go out again, oldest first
  partners test ID [-event-type T]
                              send a signed example event to a partner's endpoint now; prints its answer
  rerun [-from-step S] [-key K] WORKFLOW_ID
                              rerun a workflow from its failed step (or step S): a new attempt
  subjects erase (-email X | -phone X | -subject ID) [-json]
                              erase one data subject's personal data everywhere; prints the receipt
  subjects show [-json] EMAIL|PHONE|SUBJECT_ID
                              what is held for a data subject: counts and places, never values
  stats                       counts by status and type (GET /api/stats)
  trace [-json] TRACE_ID      one trace from the webhook to the partner, as a tree (GET /api/traces/{traceId})
  openapi                     print the OpenAPI document this build's API serves (make openapi-lint lints it)

Client commands take -url (STREAMOPS_URL, default http://127.0.0.1:8080) and
-token (STREAMOPS_ADMIN_TOKEN). 'streamops <command> -h' lists its flags.
`

// run dispatches a command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "run":
		err = runStack(ctx, rest, stdout, stderr)
	case "soak":
		err = soak(ctx, rest, stdout, stderr)
	case "curl":
		err = printCurl(rest, stdout, stderr)
	case "tail":
		err = tail(ctx, rest, stdout, stderr)
	case "replay":
		err = replay(ctx, rest, stdin, stdout, stderr)
	case "dead-letters", "dlq":
		err = deadLetters(ctx, rest, stdin, stdout, stderr)
	case "outbox":
		err = outboxCmd(ctx, rest, stdout, stderr)
	case "partners":
		err = partnersCmd(ctx, rest, stdin, stdout, stderr)
	case "subjects":
		err = subjectsCmd(ctx, rest, stdout, stderr)
	case "rerun":
		err = rerun(ctx, rest, stdout, stderr)
	case "trace":
		err = traceCmd(ctx, rest, stdout, stderr)
	case "stats":
		err = stats(ctx, rest, stdout, stderr)
	case "openapi":
		_, err = stdout.Write(httpapi.OpenAPIDocument())
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "streamops: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "streamops %s: %v\n", cmd, err)
		return 1
	}
	return 0
}
