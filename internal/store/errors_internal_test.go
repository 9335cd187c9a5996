package store

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/mongo"
)

// TestEngineRestartingIsTransient: the errors of an engine that is
// stepping down, shutting down or, behind FerretDB, a PostgreSQL that is
// recovering from a crash, are ErrUnavailable (the API answers 503 and the
// caller retries); an internal error of another kind is not.
func TestEngineRestartingIsTransient(t *testing.T) {
	tests := []struct {
		name      string
		code      int32
		message   string
		transient bool
	}{
		{"shutdown in progress", 91, "shutdown in progress", true},
		{"not writable primary", 10107, "not primary", true},
		{"interrupted at shutdown", 11600, "interrupted at shutdown", true},
		{"FerretDB, PostgreSQL in recovery", 1, "the database system is in recovery mode", true},
		{"FerretDB, PostgreSQL not yet accepting connections", 1, "the database system is not yet accepting connections", true},
		{"FerretDB, PostgreSQL starting up", 1, "the database system is starting up", true},
		{"FerretDB, PostgreSQL shutting down", 1, "the database system is shutting down", true},
		{"FerretDB, backend terminated", 1, "terminating connection due to administrator command", true},
		{"another internal error", 1, "unexpected null value", false},
		{"bad value", 2, "the database system is in recovery mode", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := classify(mongo.CommandError{Code: tc.code, Message: tc.message})
			assert.Equal(t, tc.transient, errors.Is(err, ErrUnavailable), "classified as %v", err)
		})
	}
}
