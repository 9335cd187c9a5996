package partners

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/subscribe"
	"github.com/streamops/streamops/internal/vault"
)

// DefaultOverlap is how long a rotated-out secret keeps signing beside the
// new one when the caller names no overlap: a day, for the partner to
// deploy the new secret.
const DefaultOverlap = 24 * time.Hour

// DefaultMaxOverlap is the longest overlap a rotation may ask for: 30
// days. Longer, a leaked secret would stay valid long after its rotation.
const DefaultMaxOverlap = 30 * 24 * time.Hour

// CancelledReason is the last_error of a deleted partner's cancelled
// outbox entries.
const CancelledReason = "cancelled: partner deleted"

// Config configures a Registry.
type Config struct {
	// Store keeps the partners. Required.
	Store *store.Store
	// Wrapper seals the signing secrets: the personal-data key mechanism
	// (the local key file under make run, AWS KMS in the cloud). Required.
	Wrapper vault.Wrapper
	// Providers, when set, refuses as a partner id the name of a partner
	// provider whose partnerId is another (provider.Registry.CheckPartnerID).
	Providers *provider.Registry
	// CheckSubscription refuses a subscription the fan-out's matcher
	// cannot evaluate. Default compileSubscription (subscribe.Compile).
	CheckSubscription func(subscribe.Subscription) error
	// MaxOverlap bounds a rotation's overlap. Default DefaultMaxOverlap.
	MaxOverlap time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger logs every change (never a secret). Default slog.Default().
	Logger *slog.Logger
}

func (c *Config) setDefaults() {
	if c.CheckSubscription == nil {
		c.CheckSubscription = compileSubscription
	}
	if c.MaxOverlap == 0 {
		c.MaxOverlap = DefaultMaxOverlap
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// compileSubscription refuses what subscribe.Compile refuses: an
// unknown event type, an operator the filter may not use.
func compileSubscription(s subscribe.Subscription) error {
	_, err := subscribe.Compile(s)
	return err
}

// Validate reports the first missing or bad field.
func (c Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("partners: Config.Store is required")
	case c.Wrapper == nil:
		return fmt.Errorf("partners: Config.Wrapper is required: %w", ErrNoWrapper)
	case c.MaxOverlap < 0:
		return errors.New("partners: Config.MaxOverlap must not be negative")
	}
	return nil
}

// Registry manages the partners kept in the store. Safe for concurrent
// use; every change is one conditional write, so it runs on every relay
// and API instance at once.
type Registry struct {
	cfg Config
}

// New returns a Registry.
func New(cfg Config) (*Registry, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Registry{cfg: cfg}, nil
}

// Create stores a new partner with a fresh signing secret. A bad field is
// a *FieldError, an id taken (also by a deleted partner) ErrExists;
// nothing is stored then.
func (r *Registry) Create(ctx context.Context, s Spec, by string) (Created, error) {
	s = normalise(s)
	if err := r.check(s); err != nil {
		return Created{}, err
	}
	secret, err := newSecret()
	if err != nil {
		return Created{}, err
	}
	sealed, err := seal(ctx, r.cfg.Wrapper, s.ID, secret)
	if err != nil {
		return Created{}, err
	}
	doc := toStored(s)
	doc.Source, doc.Secrets = store.PartnerSourceAPI, []store.PartnerSecret{sealed}
	stored, err := r.cfg.Store.CreatePartner(ctx, doc)
	if errors.Is(err, store.ErrDuplicate) {
		return Created{}, fmt.Errorf("partner %q: %w", s.ID, ErrExists)
	}
	if err != nil {
		return Created{}, err
	}
	r.cfg.Logger.InfoContext(ctx, "partner created", "partnerId", s.ID, "by", by, "secretId", secret.ID)
	return Created{Partner: view(stored), Secret: secret}, nil
}

// Get is one partner, also a deleted one (DeletedAt set: its history);
// store.ErrNotFound when it never existed.
func (r *Registry) Get(ctx context.Context, id string) (Partner, error) {
	d, err := r.cfg.Store.GetPartner(ctx, id)
	if err != nil {
		return Partner{}, err
	}
	return view(d), nil
}

// List is every partner that exists (not deleted), by id.
func (r *Registry) List(ctx context.Context) ([]Partner, error) {
	docs, err := r.cfg.Store.ListPartners(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Partner, len(docs))
	for i, d := range docs {
		out[i] = view(d)
	}
	return out, nil
}

// Update changes the fields p sets. With p.Version, a partner changed
// since that version is store.ErrVersionConflict; without it, one changed
// between this read and the write is. store.ErrNotFound when it does not
// exist or was deleted; a bad field is a *FieldError.
func (r *Registry) Update(ctx context.Context, id string, p Patch, by string) (Partner, error) {
	cur, err := r.live(ctx, id)
	if err != nil {
		return Partner{}, err
	}
	expected := cur.Version
	if p.Version != nil {
		expected = *p.Version
	}
	s := normalise(apply(p, specOf(cur)))
	if err := r.check(s); err != nil {
		return Partner{}, err
	}
	d, err := r.cfg.Store.UpdatePartner(ctx, toStored(s), expected)
	if err != nil {
		return Partner{}, err
	}
	r.cfg.Logger.InfoContext(ctx, "partner updated", "partnerId", id, "by", by, "version", d.Version)
	return view(d), nil
}

// Delete disables the partner for good and keeps its document (its
// history), then cancels its waiting outbox entries (pending, or failed
// and waiting for a retry): each becomes a dead letter with
// CancelledReason, so it is visible and counted (docs/conformance.md).
// An entry in flight settles as its attempt ends. store.ErrNotFound when
// the partner does not exist or was deleted.
func (r *Registry) Delete(ctx context.Context, id, by string) (Deleted, error) {
	d, err := r.cfg.Store.MarkPartnerDeleted(ctx, id, "deleted", by)
	if err != nil {
		return Deleted{}, err
	}
	n, err := r.cfg.Store.CancelPartnerOutbox(ctx, id, CancelledReason)
	if err != nil {
		return Deleted{}, err
	}
	r.cfg.Logger.InfoContext(ctx, "partner deleted", "partnerId", id, "by", by, "cancelled", n)
	return Deleted{Partner: view(d), Cancelled: n}, nil
}

// Rotate gives the partner a new signing secret; the older ones keep
// signing beside it until now + overlap (nil: DefaultOverlap; 0: they stop
// at once), at most Config.MaxOverlap, then stop. A bad overlap is a
// *FieldError naming "overlap".
func (r *Registry) Rotate(ctx context.Context, id string, overlap *time.Duration, by string) (Rotated, error) {
	o := DefaultOverlap
	if overlap != nil {
		o = *overlap
	}
	if o < 0 || o > r.cfg.MaxOverlap {
		return Rotated{}, fieldError("overlap", "%s is not between 0 and %s", o, r.cfg.MaxOverlap)
	}
	if _, err := r.live(ctx, id); err != nil {
		return Rotated{}, err
	}
	secret, err := newSecret()
	if err != nil {
		return Rotated{}, err
	}
	sealed, err := seal(ctx, r.cfg.Wrapper, id, secret)
	if err != nil {
		return Rotated{}, err
	}
	until := r.cfg.Now().UTC().Add(o).Truncate(time.Millisecond)
	d, err := r.cfg.Store.AddPartnerSecret(ctx, id, sealed, until)
	if err != nil {
		return Rotated{}, err
	}
	out := Rotated{Partner: view(d), Secret: secret}
	if len(out.Partner.Secrets) > 1 {
		out.OldUntil = &until
	}
	r.cfg.Logger.InfoContext(ctx, "partner secret rotated", "partnerId", id, "by", by, "secretId", secret.ID, "oldUntil", until)
	return out, nil
}

// Disable stops every delivery to the partner (its entries wait) until
// Enable; reason (at most MaxReasonLength characters, scrubbed like any
// text from outside) and by are kept.
func (r *Registry) Disable(ctx context.Context, id, reason, by string) (Partner, error) {
	if utf8.RuneCountInString(reason) > MaxReasonLength {
		return Partner{}, fieldError("reason", "at most %d characters", MaxReasonLength)
	}
	d, err := r.cfg.Store.SetPartnerDisabled(ctx, id, true, fault.Scrubbed(reason), by)
	if err != nil {
		return Partner{}, err
	}
	r.cfg.Logger.InfoContext(ctx, "partner disabled", "partnerId", id, "by", by, "reason", d.DisabledReason)
	return view(d), nil
}

// AutoDisabledBy is the disabledBy of a partner the relay's auto-disable
// disabled.
const AutoDisabledBy = "outbox-relay"

// DisablePartner is the relay's auto-disable (outbox.PartnerDisabler): it
// disables the stored partner at at for reason, by AutoDisabledBy, and
// reports whether it changed anything (false when it was disabled
// already, so partner.disabled is emitted once). A partner the store does
// not hold (a partners file entry not imported yet) is store.ErrNotFound:
// its deliveries go on.
func (r *Registry) DisablePartner(ctx context.Context, partnerID, reason string, at time.Time) (bool, error) {
	changed, err := r.cfg.Store.DisablePartnerOnce(ctx, partnerID, fault.Scrubbed(truncate(reason, MaxReasonLength)), AutoDisabledBy, at)
	if err == nil && changed {
		r.cfg.Logger.WarnContext(ctx, "partner disabled", "partnerId", partnerID, "by", AutoDisabledBy, "reason", reason)
	}
	return changed, err
}

// truncate is s cut to at most n characters.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// Enable resumes the deliveries to a disabled partner: its backlog
// drains under its limits.
func (r *Registry) Enable(ctx context.Context, id, by string) (Partner, error) {
	d, err := r.cfg.Store.SetPartnerDisabled(ctx, id, false, "", by)
	if err != nil {
		return Partner{}, err
	}
	r.cfg.Logger.InfoContext(ctx, "partner enabled", "partnerId", id, "by", by)
	return view(d), nil
}
