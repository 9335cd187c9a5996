package task

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/vault"
)

// Environment variables of the executors' backends, named in errors.
const (
	EnvEmailSender         = "STREAMOPS_EMAIL_SENDER"
	EnvSESConfigurationSet = "STREAMOPS_SES_CONFIGURATION_SET"
	EnvExportBucket        = "STREAMOPS_EXPORT_BUCKET"
	EnvDataDir             = "STREAMOPS_DATA_DIR"
)

// BackendConfig chooses where executors send email and store files: AWS
// (SES v2, S3) when named, local files under DataDir otherwise.
type BackendConfig struct {
	// EmailSender is the SES sender identity (STREAMOPS_EMAIL_SENDER).
	// Empty: .eml files under DataDir/mail.
	EmailSender string
	// SESConfigurationSet is the optional SES configuration set.
	SESConfigurationSet string
	// ExportBucket is the S3 bucket of exports and reports
	// (STREAMOPS_EXPORT_BUCKET). Empty: files under DataDir/objects.
	ExportBucket string
	// DataDir is the local stack's data directory (STREAMOPS_DATA_DIR).
	// Default ".streamops", as the local stack's.
	DataDir string
	// OnLambda requires the AWS backends: a Lambda's file system is
	// ephemeral, so "sent" mail and exports written there would vanish.
	OnLambda bool
	// Resolver opens the personal-data references of a task's data where
	// the task needs the values (the process's vault). Required.
	Resolver Resolver
}

// Resolver opens personal-data references (vault.Vault): those of doc
// whose category allow accepts (nil: all), each recorded with p.
type Resolver interface {
	ResolveDocument(ctx context.Context, doc []byte, p vault.Purpose, allow func(pii.Category) bool) ([]byte, error)
}

func (c *BackendConfig) setDefaults() {
	if c.DataDir == "" {
		c.DataDir = ".streamops"
	}
}

// Validate reports the first missing setting.
func (c BackendConfig) Validate() error {
	switch {
	case c.OnLambda && c.EmailSender == "":
		return fmt.Errorf("task: %s is required on Lambda (the SES sender identity)", EnvEmailSender)
	case c.OnLambda && c.ExportBucket == "":
		return fmt.Errorf("task: %s is required on Lambda (the S3 bucket of exports and reports)", EnvExportBucket)
	}
	return nil
}

// ReadStore is what the export and report executors read;
// *store.Store implements it.
type ReadStore interface {
	DocumentSource
	EventCounter
}

// Backends are where the executors send email and store files. A backend
// a new executor needs is a field here, set by LocalBackends and by
// taskaws.Backends; NewExecutors refuses Backends with a field unset.
type Backends struct {
	Mailer  Mailer
	Objects objects.Store
	// Personal opens the references a task sends to their person (an
	// email's recipient) at the moment of sending.
	Personal Resolver
}

// missing names the first field of b that is not set, or "".
func (b Backends) missing() string {
	v := reflect.ValueOf(b)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			return v.Type().Field(i).Name
		}
	}
	return ""
}

// LocalBackends are the local stack's: .eml files under cfg.DataDir/mail
// and files under cfg.DataDir/objects. The deployed task-processor's, SES
// and S3, are taskaws.Backends, in a package of its own so that only the
// function that sends and stores links those clients.
func LocalBackends(cfg BackendConfig) Backends {
	cfg.setDefaults()
	return Backends{Mailer: FileMailer{Dir: filepath.Join(cfg.DataDir, "mail")},
		Objects: objects.Files{Dir: filepath.Join(cfg.DataDir, "objects"), DefaultBucket: "local"}, Personal: cfg.Resolver}
}

// NewExecutors builds the executor of every task type of events.TaskTypes
// on b, each with the builder its file registered (registerExecutor).
func NewExecutors(b Backends, st ReadStore) (Executors, error) {
	if st == nil {
		return nil, errors.New("task: NewExecutors needs the store")
	}
	if missing := b.missing(); missing != "" {
		return nil, fmt.Errorf("task: NewExecutors needs Backends.%s (set by LocalBackends and taskaws.Backends)", missing)
	}
	for t := range builders {
		if !t.Known() {
			return nil, fmt.Errorf("task: an executor is registered for task type %q, which events.TaskTypes does not list", t)
		}
	}
	out := make(Executors, len(events.TaskTypes))
	for _, t := range events.TaskTypes {
		build, ok := builders[t]
		if !ok {
			return nil, fmt.Errorf("task: no executor registered for task type %q", t)
		}
		out[t] = build(b, st)
	}
	return out, nil
}
