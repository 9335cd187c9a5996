package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMappingSettingsRefuseEveryLimit: the CDK app reads the shared
// mapping settings as internal/eventsource does and refuses a retry or
// record-age limit and an on-failure destination, so the deployed mapping
// cannot give up on a record.
func TestMappingSettingsRefuseEveryLimit(t *testing.T) {
	unlimitedBoth := `"MaximumRetryAttempts":-1,"MaximumRecordAgeInSeconds":-1`
	tests := []struct{ name, json, wantErr string }{
		{"the repository's file", "", ""},
		{"no limits", `{"BatchSize":100,"MaximumBatchingWindowInSeconds":1,"BisectBatchOnFunctionError":true,` + unlimitedBoth + `}`, ""},
		{"ten retries", `{"BatchSize":100,"MaximumRetryAttempts":10,"MaximumRecordAgeInSeconds":-1}`, "MaximumRetryAttempts 10: want -1"},
		{"a day's record age", `{"BatchSize":100,"MaximumRetryAttempts":-1,"MaximumRecordAgeInSeconds":86400}`, "MaximumRecordAgeInSeconds 86400: want -1"},
		{"an on-failure destination", `{"BatchSize":100,"OnFailureDestination":true,` + unlimitedBoth + `}`, "unknown field"},
		{"batch size zero", `{"BatchSize":0,` + unlimitedBoth + `}`, "BatchSize 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{MappingSettingsFile: "../" + defaultMappingSettingsFile}
			if tc.json != "" {
				cfg.MappingSettingsFile = filepath.Join(t.TempDir(), "mapping.json")
				if err := os.WriteFile(cfg.MappingSettingsFile, []byte(tc.json), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := loadMappingSettings(&cfg)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			case tc.wantErr == "" && cfg.Mapping.MaximumRetryAttempts != unlimited:
				t.Fatalf("MaximumRetryAttempts %d, want %d", cfg.Mapping.MaximumRetryAttempts, unlimited)
			}
		})
	}
}
