package kmskey

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/smithy-go"

	"github.com/streamops/streamops/internal/awsenv"
)

// The kinds of KMS failure, each matched by errors.Is on an *Error.
var (
	// ErrKeyUnusable: the KMS key does not exist, is disabled, pending
	// deletion or not a symmetric encryption key. Retrying cannot help; an
	// operator must restore the key (docs/reliability.md, "Keys").
	ErrKeyUnusable = errors.New("kmskey: the KMS key is missing, disabled or not usable")
	// ErrAccessDenied: the function's role may not make the call (a grant
	// missing from the role or the key policy), or has no valid
	// credentials.
	ErrAccessDenied = errors.New("kmskey: access to the KMS key denied")
	// ErrThrottled: KMS's request quota was exceeded; retry with backoff.
	ErrThrottled = errors.New("kmskey: KMS throttled the request")
	// ErrUnavailable: KMS, the key's store or the network failed for now;
	// retry with backoff.
	ErrUnavailable = errors.New("kmskey: KMS is unavailable")
	// ErrInvalidWrapped: the wrapped key was not made by this KMS key for
	// this subject (another subject's, another key's) or was altered.
	// Retrying cannot help.
	ErrInvalidWrapped = errors.New("kmskey: the wrapped key does not unwrap under this subject and key")
)

// Error is a failed Wrap or Unwrap: errors.Is finds its Kind and the
// SDK's error (Err), errors.As a *smithy.OperationError or the service's
// exception type in it.
type Error struct {
	// Op is "wrap" or "unwrap".
	Op string
	// Subject is the subject id the call was for (an opaque id, never
	// personal data).
	Subject string
	// Code is the AWS error code ("ThrottlingException"); empty when KMS
	// did not answer.
	Code string
	// Kind is one of the Err* kinds, or nil when the failure is none of
	// them (the caller's context ended, an unknown error).
	Kind error
	// Err is the error the KMS client returned.
	Err error
}

// Error says what failed for which subject, and why.
func (e *Error) Error() string {
	if e.Kind == nil {
		return fmt.Sprintf("kmskey: %s subject %s: %v", e.Op, e.Subject, e.Err)
	}
	return fmt.Sprintf("%v (%s subject %s): %v", e.Kind, e.Op, e.Subject, e.Err)
}

// Unwrap returns the kind and the client's error.
func (e *Error) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Err}
	}
	return []error{e.Kind, e.Err}
}

// Retryable reports whether the same call may succeed later
// (ErrThrottled, ErrUnavailable).
func (e *Error) Retryable() bool {
	return e.Kind == ErrThrottled || e.Kind == ErrUnavailable
}

// IsRetryable reports whether err is a KMS failure that may pass on a
// later try: throttling or a transient outage. A missing key, a denied
// call or a wrapped key of another subject never passes by retrying.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable()
}

// codeKinds maps KMS's error codes (and the generic AWS ones a KMS call
// can answer) to kinds.
var codeKinds = map[string]error{
	"NotFoundException":           ErrKeyUnusable,
	"DisabledException":           ErrKeyUnusable,
	"KMSInvalidStateException":    ErrKeyUnusable, // pending deletion or import
	"InvalidArnException":         ErrKeyUnusable,
	"InvalidKeyUsageException":    ErrKeyUnusable,
	"AccessDeniedException":       ErrAccessDenied,
	"UnrecognizedClientException": ErrAccessDenied,
	"InvalidClientTokenId":        ErrAccessDenied,
	"InvalidSignatureException":   ErrAccessDenied,
	"IncompleteSignature":         ErrAccessDenied,
	"MissingAuthenticationToken":  ErrAccessDenied,
	"ExpiredTokenException":       ErrAccessDenied,
	"ThrottlingException":         ErrThrottled,
	"Throttling":                  ErrThrottled,
	"TooManyRequestsException":    ErrThrottled,
	"RequestLimitExceeded":        ErrThrottled,
	"KeyUnavailableException":     ErrUnavailable,
	"DependencyTimeoutException":  ErrUnavailable,
	"KMSInternalException":        ErrUnavailable,
	"ServiceUnavailable":          ErrUnavailable,
	"InternalFailure":             ErrUnavailable,
	"InvalidCiphertextException":  ErrInvalidWrapped,
	"IncorrectKeyException":       ErrInvalidWrapped,
}

// newError classifies err, the KMS client's answer to op for subject.
func newError(op, subject string, err error) *Error {
	e := &Error{Op: op, Subject: subject, Err: err}
	var api smithy.APIError
	switch {
	case errors.As(err, &api):
		e.Code = api.ErrorCode()
		if kind, ok := codeKinds[e.Code]; ok {
			e.Kind = kind
		} else if api.ErrorFault() == smithy.FaultServer {
			e.Kind = ErrUnavailable
		}
	case errors.Is(err, awsenv.ErrNoCredentials):
		e.Kind = ErrAccessDenied
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// The caller gave up: not KMS's failure, and no retry within
		// this context can pass.
	default:
		// No answer from KMS (connection refused, reset, timed out):
		// the SDK already retried; a later try may reach it.
		e.Kind = ErrUnavailable
	}
	return e
}
