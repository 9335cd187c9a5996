package partners

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/subscribe"
)

// Bounds of what a partner holds: every array has a cap, and one partner
// cannot make the directory, read by every relay every few seconds,
// large.
const (
	// MaxSubscriptions is how many subscriptions a partner may have.
	MaxSubscriptions = 20
	// MaxEventTypes is how many event types one subscription may name.
	MaxEventTypes = 50
	// MaxFilterBytes is the largest payload filter, as JSON.
	MaxFilterBytes = 4096
	// MaxNameLength is the longest name, in characters.
	MaxNameLength = 200
	// MaxURLLength is the longest endpoint URL, in bytes.
	MaxURLLength = 2048
	// MaxReasonLength is the longest disable reason, in characters.
	MaxReasonLength = 500
)

// idPattern is a partner id the API accepts: it becomes a path segment,
// a target_provider and the suffix of PARTNER_SECRET_<ID>.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// eventTypePattern is "*", a prefix ("task.*", "workflow.step.*") or an
// exact dotted type ("workflow.completed").
var eventTypePattern = regexp.MustCompile(`^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+)$`)

// check refuses a spec the relay could not deliver to, naming the first
// bad field: the partners file's rules (outbox.Partner.Validate), then
// the API's own on the id, URL, name and subscriptions.
func (r *Registry) check(s Spec) error {
	if err := (outbox.Partner{ID: s.ID, Name: s.Name, URL: s.URL, RateLimit: s.RateLimit, MaxInFlight: s.MaxInFlight,
		ClearPersonalData: s.ClearPersonalData}).Validate(); err != nil {
		field, reason, _ := strings.Cut(err.Error(), ": ")
		return &FieldError{Field: field, Reason: reason}
	}
	if !idPattern.MatchString(s.ID) {
		return fieldError("id", "%q is not 1 to 64 letters, digits, '-' or '_', starting with a letter or digit", s.ID)
	}
	if r.cfg.Providers != nil {
		if err := r.cfg.Providers.CheckPartnerID(s.ID); err != nil {
			return fieldError("id", "%v", err)
		}
	}
	if err := checkURL(s.URL); err != nil {
		return err
	}
	if utf8.RuneCountInString(s.Name) > MaxNameLength {
		return fieldError("name", "at most %d characters", MaxNameLength)
	}
	return r.checkSubscriptions(s.Subscriptions)
}

func checkURL(raw string) error {
	if len(raw) > MaxURLLength {
		return fieldError("url", "at most %d bytes", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fieldError("url", "not an absolute http or https URL")
	}
	return nil
}

// checkSubscriptions checks each subscription's shape, then passes it to
// Config.CheckSubscription (the matcher's compile); a *subscribe.Error
// names its own field under the subscription's.
func (r *Registry) checkSubscriptions(subs []subscribe.Subscription) error {
	if len(subs) > MaxSubscriptions {
		return fieldError("subscriptions", "at most %d", MaxSubscriptions)
	}
	for i, sub := range subs {
		at := fmt.Sprintf("subscriptions[%d]", i)
		switch {
		case len(sub.EventTypes) == 0:
			return fieldError(at+".eventTypes", "at least one event type")
		case len(sub.EventTypes) > MaxEventTypes:
			return fieldError(at+".eventTypes", "at most %d", MaxEventTypes)
		}
		for j, t := range sub.EventTypes {
			if !eventTypePattern.MatchString(t) {
				return fieldError(fmt.Sprintf("%s.eventTypes[%d]", at, j), "%q is not an event type (workflow.completed), a prefix (task.*) or *", t)
			}
		}
		if err := checkFilter(sub.Filter); err != nil {
			return fieldError(at+".filter", "%v", err)
		}
		if err := r.cfg.CheckSubscription(sub); err != nil {
			if se, ok := errors.AsType[*subscribe.Error](err); ok {
				return fieldError(at+"."+se.Field, "%s", se.Reason)
			}
			return fieldError(at, "%v", err)
		}
	}
	return nil
}

// checkFilter accepts no filter, null, or one JSON object within
// MaxFilterBytes.
func checkFilter(f json.RawMessage) error {
	f = bytes.TrimSpace(f)
	switch {
	case len(f) == 0 || string(f) == "null":
		return nil
	case len(f) > MaxFilterBytes:
		return fmt.Errorf("at most %d bytes", MaxFilterBytes)
	case f[0] != '{':
		return fmt.Errorf("a MongoDB query is a JSON object")
	}
	return jsonbody.Check(f)
}

// normalise drops empty filters, so a stored subscription's filter is
// either a JSON object or absent.
func normalise(s Spec) Spec {
	subs := make([]subscribe.Subscription, len(s.Subscriptions))
	for i, sub := range s.Subscriptions {
		if f := bytes.TrimSpace(sub.Filter); len(f) == 0 || string(f) == "null" {
			sub.Filter = nil
		} else {
			var compact bytes.Buffer
			if json.Compact(&compact, f) == nil {
				sub.Filter = compact.Bytes()
			}
		}
		subs[i] = sub
	}
	if len(subs) == 0 {
		subs = nil
	}
	s.Subscriptions = subs
	return s
}
