package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// defaultMappingSettingsFile is where the main module keeps the event
// source mapping settings (package internal/eventsource), relative to the
// repository root where the CDK CLI runs this app (cdk.json). infra is a
// module of its own and cannot import the main module's internal
// packages, so it reads the file the local stack embeds: one source for
// both stacks.
const defaultMappingSettingsFile = "internal/eventsource/mapping.json"

// mappingSettings are the MSK event source mappings' delivery settings as
// internal/eventsource/mapping.json holds them, keyed by the CloudFormation
// property each sets (see internal/eventsource for why these values).
// Unknown keys are an error, so a setting added there is not silently left
// out here.
type mappingSettings struct {
	BatchSize                      int  `json:"BatchSize"`
	MaximumBatchingWindowInSeconds int  `json:"MaximumBatchingWindowInSeconds"`
	MaximumRetryAttempts           int  `json:"MaximumRetryAttempts"`
	BisectBatchOnFunctionError     bool `json:"BisectBatchOnFunctionError"`
	MaximumRecordAgeInSeconds      int  `json:"MaximumRecordAgeInSeconds"`
}

// unlimited is CloudFormation's "no limit" for retries and record age.
const unlimited = -1

// loadMappingSettings reads cfg.MappingSettingsFile into cfg.Mapping. As
// internal/eventsource does, it refuses a retry or record-age limit: the
// processors dead-letter poison themselves, so a mapping that gave up
// would skip records a transient failure kept from being processed.
func loadMappingSettings(cfg *Config) error {
	b, err := os.ReadFile(cfg.MappingSettingsFile)
	if err != nil {
		return fmt.Errorf("context %s: %w", ctxMappingSettingsFile, err)
	}
	var s mappingSettings
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return fmt.Errorf("context %s: %s: %w", ctxMappingSettingsFile, cfg.MappingSettingsFile, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("context %s: %s: %s", ctxMappingSettingsFile, cfg.MappingSettingsFile, fmt.Sprintf(format, args...))
	}
	if s.BatchSize < 1 {
		return bad("BatchSize %d: want at least 1", s.BatchSize)
	}
	const skips = "want -1: a limit would commit past records a transient failure kept from being processed"
	if s.MaximumRetryAttempts != unlimited {
		return bad("MaximumRetryAttempts %d: %s", s.MaximumRetryAttempts, skips)
	}
	if s.MaximumRecordAgeInSeconds != unlimited {
		return bad("MaximumRecordAgeInSeconds %d: %s", s.MaximumRecordAgeInSeconds, skips)
	}
	cfg.Mapping = s
	return nil
}
