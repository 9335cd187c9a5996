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
	// its records go to the on-failure destination (0–10,000, or
	// Unlimited).
	MaximumRetryAttempts int `json:"MaximumRetryAttempts"`
	// BisectBatchOnFunctionError splits a failed batch in two before it
	// is retried, so a record that keeps failing ends alone.
	BisectBatchOnFunctionError bool `json:"BisectBatchOnFunctionError"`
	// MaximumRecordAgeInSeconds: older records are not delivered but go
	// to the on-failure destination (60–604,800, or Unlimited).
	MaximumRecordAgeInSeconds int `json:"MaximumRecordAgeInSeconds"`
	// OnFailureDestination says whether given-up records are kept
	// somewhere (true) or only skipped, as a mapping without a
	// destination does.
	OnFailureDestination bool `json:"OnFailureDestination"`
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

// Validate reports every value Lambda would reject, naming its key.
func (s Settings) Validate() error {
	var errs []error
	if s.BatchSize < 1 || s.BatchSize > 10000 {
		errs = append(errs, fmt.Errorf("eventsource: BatchSize %d: want 1–10000", s.BatchSize))
	}
	if s.MaximumBatchingWindowInSeconds < 0 || s.MaximumBatchingWindowInSeconds > 300 {
		errs = append(errs, fmt.Errorf("eventsource: MaximumBatchingWindowInSeconds %d: want 0–300", s.MaximumBatchingWindowInSeconds))
	}
	if s.MaximumRetryAttempts != Unlimited && (s.MaximumRetryAttempts < 0 || s.MaximumRetryAttempts > 10000) {
		errs = append(errs, fmt.Errorf("eventsource: MaximumRetryAttempts %d: want 0–10000 or -1", s.MaximumRetryAttempts))
	}
	if s.MaximumRecordAgeInSeconds != Unlimited && (s.MaximumRecordAgeInSeconds < 60 || s.MaximumRecordAgeInSeconds > 604800) {
		errs = append(errs, fmt.Errorf("eventsource: MaximumRecordAgeInSeconds %d: want 60–604800 or -1", s.MaximumRecordAgeInSeconds))
	}
	return errors.Join(errs...)
}

// BatchingWindow is MaximumBatchingWindowInSeconds as a duration.
func (s Settings) BatchingWindow() time.Duration {
	return time.Duration(s.MaximumBatchingWindowInSeconds) * time.Second
}

// MaxRecordAge is MaximumRecordAgeInSeconds as a duration; 0 means no
// limit.
func (s Settings) MaxRecordAge() time.Duration {
	if s.MaximumRecordAgeInSeconds == Unlimited {
		return 0
	}
	return time.Duration(s.MaximumRecordAgeInSeconds) * time.Second
}

// RetriesExhausted reports whether a batch retried retries times may not
// be retried again.
func (s Settings) RetriesExhausted(retries int) bool {
	return s.MaximumRetryAttempts != Unlimited && retries >= s.MaximumRetryAttempts
}
