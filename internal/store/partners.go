package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// CollPartners holds the partners managed at run time (issue 35): their
// endpoints, limits, subscriptions and sealed signing secrets. A deleted
// partner's document stays (deleted_at set), with its history; no
// retention rule deletes it.
const CollPartners = "partners"

// Where a stored partner came from (StoredPartner.Source).
const (
	// PartnerSourceAPI: created through POST /api/partners.
	PartnerSourceAPI = "api"
	// PartnerSourceFile: imported from the partners file at start.
	PartnerSourceFile = "file"
)

// MaxPartnerSecrets bounds a partner's secrets array: a rotation drops
// the secrets that stopped signing before it, so only the live ones and
// the new one remain, and more live ones than this are refused.
const MaxPartnerSecrets = 10

// ErrVersionConflict is returned when an update names a version of a
// document that is no longer its current one: someone changed it in
// between. Nothing was changed; the API answers 409.
var ErrVersionConflict = errors.New("store: version conflict")

// ErrTooManySecrets is returned when a rotation would leave a partner with
// more than MaxPartnerSecrets live secrets.
var ErrTooManySecrets = errors.New("store: too many live secrets")

// StoredPartner is a partners document: one partner endpoint managed at
// run time. It is the document, not the domain type (outbox.Partner):
// package partners maps between them.
type StoredPartner struct {
	ID                string                `bson:"_id"`
	Name              string                `bson:"name"`
	URL               string                `bson:"url"`
	RateLimit         *float64              `bson:"rate_limit,omitempty"`
	MaxInFlight       *int                  `bson:"max_in_flight,omitempty"`
	ClearPersonalData []string              `bson:"clear_personal_data,omitempty"`
	Subscriptions     []PartnerSubscription `bson:"subscriptions,omitempty"`
	// Secrets sign the partner's deliveries, each sealed; never returned
	// by the API.
	Secrets        []PartnerSecret `bson:"secrets,omitempty"`
	Disabled       bool            `bson:"disabled"`
	DisabledAt     *time.Time      `bson:"disabled_at,omitempty"`
	DisabledReason string          `bson:"disabled_reason,omitempty"`
	DisabledBy     string          `bson:"disabled_by,omitempty"`
	// DeletedAt is set when the partner was deleted: it is disabled for
	// good and absent from the directory; the document is its history.
	DeletedAt *time.Time `bson:"deleted_at"`
	Source    string     `bson:"source"`
	CreatedAt time.Time  `bson:"created_at"`
	UpdatedAt time.Time  `bson:"updated_at"`
	// Version counts the partner's changes from 1: an update names the
	// version it read (optimistic concurrency for PATCH).
	Version int `bson:"version"`
}

// PartnerSubscription is one subscription of a stored partner. Filter is
// the MongoDB query as JSON text: stored as a document its $-prefixed
// operators would be field names, which a store refuses.
type PartnerSubscription struct {
	EventTypes []string `bson:"event_types"`
	Filter     string   `bson:"filter,omitempty"`
}

// PartnerSecret is one signing secret of a partner, sealed by the
// personal-data key mechanism (vault.Wrapper). NotAfter is when it stops
// signing; nil is no end.
type PartnerSecret struct {
	ID        string     `bson:"id"`
	Sealed    []byte     `bson:"sealed"`
	CreatedAt time.Time  `bson:"created_at"`
	NotAfter  *time.Time `bson:"not_after,omitempty"`
}

// LiveAt says whether the secret still signs at t.
func (s PartnerSecret) LiveAt(t time.Time) bool { return s.NotAfter == nil || t.Before(*s.NotAfter) }

// notDeleted selects the partners that exist. deleted_at is stored (null)
// on every document, so the (deleted_at, _id) index serves it.
var notDeleted = bson.M{"deleted_at": nil}

// CreatePartner stores a new partner, version 1, with created_at and
// updated_at now, and each secret without a created_at created now. A
// partner with the same id (also a deleted one, whose history keeps its
// id) is ErrDuplicate; nothing is changed then.
func (s *Store) CreatePartner(ctx context.Context, p StoredPartner) (StoredPartner, error) {
	now := s.now()
	p.CreatedAt, p.UpdatedAt, p.Version, p.DeletedAt = now, now, 1, nil
	// The first secret is made with the partner (by the API or an import
	// of the partners file): it was created now too.
	p.Secrets = slices.Clone(p.Secrets)
	for i := range p.Secrets {
		if p.Secrets[i].CreatedAt.IsZero() {
			p.Secrets[i].CreatedAt = now
		}
	}
	if _, err := s.countedCollection(CollPartners).InsertOne(ctx, p); err != nil {
		return StoredPartner{}, fmt.Errorf("store: create partner %s: %w", p.ID, normalise(err))
	}
	return p, nil
}

// GetPartner loads one partner, also a deleted one (DeletedAt set);
// ErrNotFound when it never existed.
func (s *Store) GetPartner(ctx context.Context, id string) (StoredPartner, error) {
	p, err := getByID[StoredPartner](ctx, s.countedCollection(CollPartners), id)
	if err != nil {
		return StoredPartner{}, fmt.Errorf("store: load partner %s: %w", id, err)
	}
	return p, nil
}

// ListPartners loads every partner that exists (not deleted) and, of the
// ids in deletedToo, the deleted ones too, by id. The partners are few
// (one per integration), so they are read whole; a deleted partner is
// read only when asked for by id, so the history does not weigh on it.
func (s *Store) ListPartners(ctx context.Context, deletedToo ...string) ([]StoredPartner, error) {
	var filter any = notDeleted
	if len(deletedToo) > 0 {
		filter = bson.M{"$or": bson.A{notDeleted, bson.M{"_id": bson.M{"$in": deletedToo}}}}
	}
	ps, err := findAll[StoredPartner](ctx, s.countedCollection(CollPartners), filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("store: list partners: %w", err)
	}
	return ps, nil
}

// UpdatePartner replaces the endpoint's settings (name, url, limits,
// clear personal data, subscriptions) of a partner at version expected,
// and returns it as it is after (version + 1). ErrNotFound when it does
// not exist or was deleted; ErrVersionConflict when its version is no
// longer expected.
func (s *Store) UpdatePartner(ctx context.Context, p StoredPartner, expected int) (StoredPartner, error) {
	set := bson.M{"name": p.Name, "url": p.URL, "updated_at": s.now()}
	unset := bson.M{}
	optional := func(field string, v any, present bool) {
		if present {
			set[field] = v
		} else {
			unset[field] = ""
		}
	}
	optional("rate_limit", p.RateLimit, p.RateLimit != nil)
	optional("max_in_flight", p.MaxInFlight, p.MaxInFlight != nil)
	optional("clear_personal_data", p.ClearPersonalData, len(p.ClearPersonalData) > 0)
	optional("subscriptions", p.Subscriptions, len(p.Subscriptions) > 0)
	update := bson.M{"$set": set, "$inc": bson.M{"version": 1}}
	if len(unset) > 0 {
		update["$unset"] = unset
	}
	return s.changePartner(ctx, "update", p.ID, &expected, update)
}

// SetPartnerDisabled disables (disabled true, with reason, by whom and
// when) or enables (disabled false; the fields of the last disable stay)
// a partner that exists, and returns it as it is after.
func (s *Store) SetPartnerDisabled(ctx context.Context, id string, disabled bool, reason, by string) (StoredPartner, error) {
	set := bson.M{"disabled": disabled, "updated_at": s.now()}
	if disabled {
		set["disabled_reason"], set["disabled_by"] = reason, by
		// disabled_at is when the disable began: a second disable
		// changes its reason, not when it began.
		if cur, err := s.GetPartner(ctx, id); err != nil || !cur.Disabled {
			set["disabled_at"] = s.now()
		}
	}
	action := "enable"
	if disabled {
		action = "disable"
	}
	p, err := s.changePartner(ctx, action, id, nil, bson.M{"$set": set, "$inc": bson.M{"version": 1}})
	if err != nil {
		return p, err
	}
	return p, s.mirrorDisabled(ctx, id, disabled)
}

// mirrorDisabled records a partner's disabled in its endpoint state, which
// every claim reads (blocked): its entries wait unclaimed while it is
// disabled, and are due again the moment it is enabled.
func (s *Store) mirrorDisabled(ctx context.Context, id string, disabled bool) error {
	_, err := s.partnerEndpoints.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"disabled": disabled, "updated_at": bsonTime(s.now())},
		"$setOnInsert": bson.M{"state": status.BreakerClosed}}, options.Update().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("store: mirror partner %s disabled: %w", id, normalise(err))
	}
	return nil
}

// DisablePartnerOnce disables a partner that exists and is enabled, at
// at, for reason, by by (the relay's auto-disable), and reports whether it
// changed anything: false, with nothing written, when the partner was
// disabled already (another relay came first). ErrNotFound when it does
// not exist or was deleted.
func (s *Store) DisablePartnerOnce(ctx context.Context, id, reason, by string, at time.Time) (bool, error) {
	res, err := s.countedCollection(CollPartners).UpdateOne(ctx, bson.M{"_id": id, "deleted_at": nil, "disabled": false},
		bson.M{"$set": bson.M{"disabled": true, "disabled_at": bsonTime(at), "disabled_reason": reason, "disabled_by": by,
			"updated_at": s.now()}, "$inc": bson.M{"version": 1}})
	if err != nil {
		return false, fmt.Errorf("store: disable partner %s: %w", id, normalise(err))
	}
	if res.ModifiedCount > 0 {
		return true, s.mirrorDisabled(ctx, id, true)
	}
	cur, err := s.GetPartner(ctx, id)
	switch {
	case err != nil:
		return false, err
	case cur.DeletedAt != nil:
		return false, fmt.Errorf("store: disable partner %s: %w (deleted)", id, ErrNotFound)
	}
	return false, nil
}

// MarkPartnerDeleted disables a partner for good (deleted_at now, the
// reason and who) and keeps its document; ErrNotFound when it does not
// exist or was deleted already.
func (s *Store) MarkPartnerDeleted(ctx context.Context, id, reason, by string) (StoredPartner, error) {
	now := s.now()
	return s.changePartner(ctx, "delete", id, nil, bson.M{"$set": bson.M{
		"disabled": true, "disabled_at": now, "disabled_reason": reason, "disabled_by": by,
		"deleted_at": now, "updated_at": now,
	}, "$inc": bson.M{"version": 1}})
}

// AddPartnerSecret adds secret to a partner that exists and ends every
// other secret at othersNotAfter (or earlier, when one ends before):
// the old ones keep signing beside the new one until then. Secrets that
// ended by now are dropped, so the array holds at most
// MaxPartnerSecrets. It is a compare-and-set on the version read, retried
// when another change came in between.
func (s *Store) AddPartnerSecret(ctx context.Context, id string, secret PartnerSecret, othersNotAfter time.Time) (StoredPartner, error) {
	othersNotAfter = bsonTime(othersNotAfter)
	for range 8 {
		p, err := s.GetPartner(ctx, id)
		if err != nil {
			return StoredPartner{}, err
		}
		if p.DeletedAt != nil {
			return StoredPartner{}, fmt.Errorf("store: rotate partner %s: %w", id, ErrNotFound)
		}
		now := s.now()
		kept := make([]PartnerSecret, 0, len(p.Secrets)+1)
		for _, old := range p.Secrets {
			if !old.LiveAt(now) {
				continue
			}
			if old.NotAfter == nil || othersNotAfter.Before(*old.NotAfter) {
				end := othersNotAfter
				old.NotAfter = &end
			}
			kept = append(kept, old)
		}
		secret.CreatedAt = now
		kept = append(kept, secret)
		if len(kept) > MaxPartnerSecrets {
			return StoredPartner{}, fmt.Errorf("store: rotate partner %s: %w (%d, at most %d): wait until an overlap ends", id, ErrTooManySecrets, len(kept), MaxPartnerSecrets)
		}
		out, err := s.changePartner(ctx, "rotate", id, &p.Version, bson.M{
			"$set": bson.M{"secrets": kept, "updated_at": now}, "$inc": bson.M{"version": 1}})
		if errors.Is(err, ErrVersionConflict) {
			continue
		}
		return out, err
	}
	return StoredPartner{}, fmt.Errorf("store: rotate partner %s: %w: it kept changing", id, ErrVersionConflict)
}

// changePartner applies update to the partner id if it exists (and is at
// version *expected, when given) and returns it as it is after.
func (s *Store) changePartner(ctx context.Context, action, id string, expected *int, update bson.M) (StoredPartner, error) {
	filter := bson.M{"_id": id, "deleted_at": nil}
	if expected != nil {
		filter["version"] = *expected
	}
	var out StoredPartner
	err := s.countedCollection(CollPartners).FindOneAndUpdate(ctx, filter, update,
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&out)
	if err = normalise(err); err == nil {
		return out, nil
	}
	if !errors.Is(err, ErrNotFound) || expected == nil {
		return StoredPartner{}, fmt.Errorf("store: %s partner %s: %w", action, id, err)
	}
	cur, gerr := s.GetPartner(ctx, id)
	switch {
	case gerr != nil:
		return StoredPartner{}, gerr
	case cur.DeletedAt != nil:
		return StoredPartner{}, fmt.Errorf("store: %s partner %s: %w (deleted)", action, id, ErrNotFound)
	}
	return StoredPartner{}, fmt.Errorf("store: %s partner %s: %w: version %d was read, it is at %d now", action, id, ErrVersionConflict, *expected, cur.Version)
}

// CancelPartnerOutbox ends the partner's waiting integration_outbox
// entries (pending, or failed and due for a retry; not one in flight):
// each becomes dead_letter with reason as its last_error, visible beside
// the other dead letters (docs/conformance.md says why). It returns how
// many it cancelled.
func (s *Store) CancelPartnerOutbox(ctx context.Context, partnerID, reason string) (int, error) {
	n, err := updateMatching(ctx, s.outbox,
		bson.M{"target_provider": partnerID, "status": bson.M{"$in": []string{status.OutboxPending, status.OutboxFailed}}},
		bson.M{"$set": bson.M{"status": status.OutboxDeadLetter, "last_error": reason},
			"$unset": bson.M{"lease_expires_at": "", "claim_token": ""}})
	if err != nil {
		return int(n), fmt.Errorf("store: cancel the outbox of partner %s: %w", partnerID, normalise(err))
	}
	return int(n), nil
}
