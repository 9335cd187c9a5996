package eventsource

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Path is mapping.json's path from the repository root, where the CDK CLI
// runs the infra app (cdk.json), which reads it from there.
const Path = "internal/eventsource/mapping.json"

//go:embed mapping.json
var mappingJSON []byte

// Unlimited is the value of MaximumRetryAttempts and
// MaximumRecordAgeInSeconds that sets no limit, as in CloudFormation.
const Unlimited = -1

// Settings are one event source mapping's delivery settings, named as the
// CloudFormation properties they set.
type Settings struct {
	// BatchSize is the most records one invocation gets (1–10,000).
	BatchSize int `json:"BatchSize"`
	// MaximumBatchingWindowInSeconds is how long a poll waits to fill a
	// batch (0–300).
	MaximumBatchingWindowInSeconds int `json:"MaximumBatchingWindowInSeconds"`
	// MaximumRetryAttempts is how often a failed batch is retried before
	// Lambda discards it; only Unlimited is accepted (Validate).
	MaximumRetryAttempts int `json:"MaximumRetryAttempts"`
	// BisectBatchOnFunctionError splits a failed batch in two before it
	// is retried, so a record that keeps failing ends alone.
	BisectBatchOnFunctionError bool `json:"BisectBatchOnFunctionError"`
	// MaximumRecordAgeInSeconds: older records are discarded undelivered;
	// only Unlimited is accepted (Validate).
	MaximumRecordAgeInSeconds int `json:"MaximumRecordAgeInSeconds"`
}

// Deployed returns the settings in mapping.json, the ones the CDK stack
// deploys. The embedded file is checked by this package's tests, so a bad
// one never builds a release; Deployed panics on one.
func Deployed() Settings {
	s, err := Parse(mappingJSON)
	if err != nil {
		panic(err)
	}
	return s
}

// Parse reads and validates mapping.json's content; unknown keys are an
// error, so a misspelt setting does not silently keep its default.
func Parse(b []byte) (Settings, error) {
	var s Settings
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Settings{}, fmt.Errorf("eventsource: mapping.json: %w", err)
	}
	if err := s.Validate(); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// Validate reports every value Lambda would reject, and every limit that
// would let the mapping discard a record, naming its key: the processors
// dead-letter what will never succeed, so what still fails a batch is a
// dependency that is down, and its records must wait for it, not be
// skipped (see the package comment).
func (s Settings) Validate() error {
	var errs []error
	if s.BatchSize < 1 || s.BatchSize > 10000 {
		errs = append(errs, fmt.Errorf("eventsource: BatchSize %d: want 1–10000", s.BatchSize))
	}
	if s.MaximumBatchingWindowInSeconds < 0 || s.MaximumBatchingWindowInSeconds > 300 {
		errs = append(errs, fmt.Errorf("eventsource: MaximumBatchingWindowInSeconds %d: want 0–300", s.MaximumBatchingWindowInSeconds))
	}
	const skips = "want -1: a limit would commit past records a transient failure kept from being processed"
	if s.MaximumRetryAttempts != Unlimited {
		errs = append(errs, fmt.Errorf("eventsource: MaximumRetryAttempts %d: %s", s.MaximumRetryAttempts, skips))
	}
	if s.MaximumRecordAgeInSeconds != Unlimited {
		errs = append(errs, fmt.Errorf("eventsource: MaximumRecordAgeInSeconds %d: %s", s.MaximumRecordAgeInSeconds, skips))
	}
	return errors.Join(errs...)
}

// BatchingWindow is MaximumBatchingWindowInSeconds as a duration.
func (s Settings) BatchingWindow() time.Duration {
	return time.Duration(s.MaximumBatchingWindowInSeconds) * time.Second
}
