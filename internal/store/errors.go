package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/x/mongo/driver"
	"go.mongodb.org/mongo-driver/x/mongo/driver/topology"
)

// ErrDuplicate is returned when a write collides with a unique key
// (event_id, provider+provider_event_id, outbox id, …). Every write is keyed
// by a deterministic id, so a duplicate means "already done": callers treat
// it as success.
var ErrDuplicate = errors.New("store: duplicate key")

// ErrNotFound is returned when a document looked up by id does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrExpired is returned when what was asked for existed but its
// retention (Config.Retention) deleted it: a rerun of a workflow that
// ended longer ago than Retention.Workflows. The API answers 410.
var ErrExpired = errors.New("store: expired")

// ErrStatusConflict is returned when an operator's action does not apply
// to a document in its current status (a requeue of an outbox entry that
// is not dead-lettered). errors.As gives the *StatusConflictError that
// names the status. Nothing was changed.
var ErrStatusConflict = errors.New("store: status conflict")

// StatusConflictError says which status a document is in and which ones
// the refused action applies to.
type StatusConflictError struct {
	// Action names what was refused ("requeue").
	Action string
	// Status is the document's current status.
	Status string
	// Allowed are the statuses the action applies to.
	Allowed []string
}

func (e *StatusConflictError) Error() string {
	return fmt.Sprintf("store: status is %s; %s applies to %s only", e.Status, e.Action, strings.Join(e.Allowed, ", "))
}

// Is makes errors.Is(err, ErrStatusConflict) hold.
func (e *StatusConflictError) Is(target error) bool { return target == ErrStatusConflict }

// isDuplicate recognises a duplicate-key error from either engine: the
// official driver's typed error and lungo's plain-text one.
func isDuplicate(err error) bool {
	return err != nil && (mongo.IsDuplicateKeyError(err) || lungo.IsUniquenessError(err))
}

// normalise maps engine errors onto the package's sentinel errors.
func normalise(err error) error {
	err = classify(err)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return ErrNotFound
	case isDuplicate(err):
		return errors.Join(ErrDuplicate, err)
	}
	return err
}

// duplicateIndexes returns the positions of the operations of a bulk write
// that failed only because of a duplicate key, and the first other error.
// lungo reports mongo.WriteErrors; the driver a mongo.BulkWriteException.
func duplicateIndexes(err error) (dups map[int]bool, other error) {
	if err == nil {
		return nil, nil
	}
	var writeErrs mongo.WriteErrors
	var bulkErr mongo.BulkWriteException
	switch {
	case errors.As(err, &bulkErr):
		for _, we := range bulkErr.WriteErrors {
			writeErrs = append(writeErrs, we.WriteError)
		}
		if bulkErr.WriteConcernError != nil {
			other = bulkErr
		}
	case errors.As(err, &writeErrs):
	default:
		return nil, err
	}
	dups = make(map[int]bool, len(writeErrs))
	for _, we := range writeErrs {
		if we.Code == 11000 || we.Code == 11001 || we.Code == 12582 || lungo.IsUniquenessError(errors.New(we.Message)) {
			dups[we.Index] = true
		} else if other == nil {
			other = we
		}
	}
	return dups, other
}

// ErrUnavailable wraps every failure to reach the engine or to get its
// answer in time: a lost or refused connection, a timeout (the store's or
// the caller's deadline), no server to select, a server shutting down.
// Whether a write took effect is unknown; every write is keyed by a
// deterministic id, so retrying it is safe. Callers fail the request or
// the batch and retry (the API answers 503 with Retry-After).
var ErrUnavailable = errors.New("store: unavailable")

// ErrInvalidDocument wraps every document the engine can never store (a
// key with a NUL byte, a document over MaxDocumentSize, a field name the
// server rejects): retrying fails the same way, so callers reject the
// input (400) or dead-letter the record. errors.As gives the
// *InvalidDocumentError that names the field.
var ErrInvalidDocument = errors.New("store: invalid document")

// MaxDocumentSize is the largest document MongoDB stores (16 MiB); the
// store enforces it on every engine.
const MaxDocumentSize = 16 << 20

// oversize is the *InvalidDocumentError of a document of n bytes over
// MaxDocumentSize ("<what> n bytes, over …"), or nil when it fits.
func oversize(what string, n int) error {
	if n <= MaxDocumentSize {
		return nil
	}
	return &InvalidDocumentError{Reason: fmt.Sprintf("%s %d bytes, over the %d a MongoDB document may hold", what, n, MaxDocumentSize)}
}

// InvalidDocumentError says which field of a document cannot be stored
// and why.
type InvalidDocumentError struct {
	// Field is the dotted path of the offending key within the JSON the
	// caller gave ("" for the document as a whole).
	Field string
	// Reason says what is wrong, for a person.
	Reason string
	err    error
}

func (e *InvalidDocumentError) Error() string {
	if e.Field == "" {
		return "store: invalid document: " + e.Reason
	}
	return fmt.Sprintf("store: invalid document: field %q: %s", e.Field, e.Reason)
}

// Transient is false: the same document fails the same way (fault.Classifier).
func (e *InvalidDocumentError) Transient() bool { return false }

// unavailableError is ErrUnavailable with its cause; it is transient for
// fault.IsRetryable, so every caller retries it the same way.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string        { return "store: unavailable: " + e.err.Error() }
func (e *unavailableError) Is(target error) bool { return target == ErrUnavailable }
func (e *unavailableError) Unwrap() error        { return e.err }
func (e *unavailableError) Transient() bool      { return true }

// Is makes errors.Is(err, ErrInvalidDocument) hold.
func (e *InvalidDocumentError) Is(target error) bool { return target == ErrInvalidDocument }

// Unwrap returns the engine's own error, if any.
func (e *InvalidDocumentError) Unwrap() error { return e.err }

// inField places an *InvalidDocumentError found in err under field, the
// document field whose JSON it was (a workflow's input, a task's data), so
// the path it names is the one the caller sent.
func inField(field string, err error) error {
	var invalid *InvalidDocumentError
	if errors.As(err, &invalid) {
		if invalid.Field == "" {
			invalid.Field = field
		} else {
			invalid.Field = field + "." + invalid.Field
		}
	}
	return err
}

// classify marks an engine error as transient (ErrUnavailable) or as a
// document the engine rejects (ErrInvalidDocument); other errors pass
// unchanged. It is applied to every command (gatedCollection) and again
// by normalise, so cursor errors are classified too.
func classify(err error) error {
	var marshal mongo.MarshalError // has no Unwrap: look inside for our own error
	var invalid *InvalidDocumentError
	if errors.As(err, &marshal) && errors.As(marshal.Err, &invalid) {
		return invalid
	}
	switch {
	case err == nil, errors.Is(err, ErrUnavailable), errors.Is(err, ErrInvalidDocument):
		return err
	case isTransient(err):
		return &unavailableError{err: err}
	case isRejected(err):
		return &InvalidDocumentError{Reason: err.Error(), err: err}
	}
	return err
}

// transientCodes are server error codes of a server that is shutting
// down, stepping down or timing out: the same command succeeds later.
var transientCodes = map[int]bool{
	6: true, 7: true, 50: true, 89: true, 91: true, 189: true, 262: true, 9001: true,
	10107: true, 11600: true, 11602: true, 13435: true, 13436: true,
}

func isTransient(err error) bool {
	var selection topology.ServerSelectionError
	var server mongo.ServerError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, mongo.ErrClientDisconnected), errors.Is(err, topology.ErrServerSelectionTimeout),
		errors.As(err, &selection), mongo.IsTimeout(err), mongo.IsNetworkError(err):
		return true
	case errors.As(err, &server):
		if server.HasErrorLabel("RetryableWriteError") || server.HasErrorLabel("TransientTransactionError") {
			return true
		}
		for code := range transientCodes {
			if server.HasErrorCode(code) {
				return true
			}
		}
		if server.HasErrorCode(internalError) {
			for _, m := range restartingBackend {
				if server.HasErrorMessage(m) {
					return true
				}
			}
		}
	}
	return false
}

// internalError is MongoDB's InternalError code, which FerretDB also
// answers when the PostgreSQL behind it is not serving.
const internalError = 1

// restartingBackend are PostgreSQL's messages for a server starting up,
// shutting down or recovering after a crash (SQLSTATE 57P01 to 57P03),
// which FerretDB passes on as InternalError: the same command succeeds
// once the server is back.
var restartingBackend = []string{
	"the database system is starting up",
	"the database system is shutting down",
	"the database system is in recovery mode",
	"the database system is not yet accepting connections",
	"terminating connection due to administrator command",
}

// rejectedCodes are server error codes for a document that cannot be
// stored as it is: BadValue, Overflow, DollarPrefixedFieldName,
// EmptyFieldName, DottedFieldName, BSONObjectTooLarge and the update forms
// of "too large".
var rejectedCodes = []int{2, 15, 52, 56, 57, 10334, 17419, 17420}

func isRejected(err error) bool {
	var marshal mongo.MarshalError
	var server mongo.ServerError
	switch {
	case errors.As(err, &marshal), errors.Is(err, driver.ErrDocumentTooLarge):
		return true
	case errors.As(err, &server):
		for _, code := range rejectedCodes {
			if server.HasErrorCode(code) {
				return true
			}
		}
	}
	return false
}
