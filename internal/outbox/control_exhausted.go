package outbox

import (
	"context"
	"errors"
)

// exhaustedControl fails, without a request, a delivery claimed beyond
// its attempts (relays died holding its lease): it is dead-lettered.
var exhaustedControl = control{name: "exhausted", before: func(_ context.Context, _ *partnerSends, o *outcome) verdict {
	if o.entry.exhausted() {
		return verdict{err: &DeliveryError{Err: errors.New("attempts exhausted")}}
	}
	return goOn
}}
