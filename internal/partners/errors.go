package partners

import (
	"errors"
	"fmt"

	"github.com/streamops/streamops/internal/partners/partner"
)

// The shapes of package partner, named here too.
type (
	// Spec is partner.Spec.
	Spec = partner.Spec
	// Partner is partner.View.
	Partner = partner.View
	// SecretInfo is partner.SecretInfo.
	SecretInfo = partner.SecretInfo
	// Patch is partner.Patch.
	Patch = partner.Patch
	// Secret is partner.Secret.
	Secret = partner.Secret
	// Created is partner.Created.
	Created = partner.Created
	// Deleted is partner.Deleted.
	Deleted = partner.Deleted
	// Rotated is partner.Rotated.
	Rotated = partner.Rotated
	// FieldError is partner.FieldError.
	FieldError = partner.FieldError
)

// Change is partner.Change.
type Change[T any] = partner.Change[T]

// ErrExists is partner.ErrExists.
var ErrExists = partner.ErrExists

// ErrNoWrapper is a registry or directory built without a key to seal
// secrets with: managed partners need the personal-data keys.
var ErrNoWrapper = errors.New("partners: no key to seal secrets with (vault.Wrapper)")

func fieldError(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
