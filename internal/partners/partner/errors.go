package partner

import (
	"errors"
	"fmt"
)

// ErrExists is a create with the id of a partner the store already holds
// (also a deleted one, whose history keeps the id). The API answers 409.
var ErrExists = errors.New("partners: a partner with this id exists")

// FieldError is a partner's field with a value the registry refuses:
// Field names it as the API's JSON does ("url", "subscriptions[0].filter").
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return fmt.Sprintf("partners: %s: %s", e.Field, e.Reason) }
