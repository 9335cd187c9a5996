package partners

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/vault"
)

// DefaultRefresh is DirectoryConfig.Refresh's default: a change made
// through the API reaches every relay instance within 2 s, at one small
// read per instance every 2 s.
const DefaultRefresh = 2 * time.Second

// DirectoryConfig configures a Directory.
type DirectoryConfig struct {
	// Store keeps the partners. Required.
	Store *store.Store
	// Wrapper opens the sealed secrets (the Registry's). Required.
	Wrapper vault.Wrapper
	// Refresh is how long a snapshot of the partners serves before the
	// next read (env STREAMOPS_PARTNERS_REFRESH). Default DefaultRefresh.
	Refresh time.Duration
	// File is the partners file (outbox.LoadPartners). A partner of it
	// the store has never held is served from it until it is imported
	// (Registry.Import runs where secrets can be sealed: the api
	// function); one the store holds, also deleted, is the store's.
	File map[string]outbox.Partner
	// Fallback gives the secrets of a partner that has no live stored
	// secret (a partners file entry not imported yet, or imported without
	// one): the environment or Secrets Manager, as before partners were
	// data. nil: none.
	Fallback provider.SecretSource
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Directory is the partners as the store holds them, for the outbox
// relay: an outbox.PartnerDirectory and a provider.SecretSource. It reads
// every partner that exists at most once per Refresh, and opens each
// sealed secret once (kept while the secret is unchanged). Safe for
// concurrent use.
type Directory struct {
	cfg DirectoryConfig

	// fileIDs are File's ids: a deleted one must be read to hide it.
	fileIDs []string

	mu     sync.Mutex
	loaded time.Time
	snap   snapshot
}

// snapshot is one read of the partners.
type snapshot struct {
	partners map[string]outbox.Partner
	// secrets are each partner's opened secrets, oldest first.
	secrets map[string][]openSecret
}

// openSecret is a stored secret opened, with what it was opened from.
type openSecret struct {
	id       string
	sealed   []byte
	value    string
	notAfter *time.Time
}

// NewDirectory returns a Directory; it reads nothing until asked.
func NewDirectory(cfg DirectoryConfig) (*Directory, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("partners: DirectoryConfig.Store is required")
	case cfg.Wrapper == nil:
		return nil, fmt.Errorf("partners: DirectoryConfig.Wrapper is required: %w", ErrNoWrapper)
	case cfg.Refresh < 0:
		return nil, errors.New("partners: DirectoryConfig.Refresh must not be negative")
	}
	if cfg.Refresh == 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ids := make([]string, 0, len(cfg.File))
	for id := range cfg.File {
		ids = append(ids, id)
	}
	return &Directory{cfg: cfg, fileIDs: ids}, nil
}

// Partners are the partners that exist (deleted ones are absent; a
// disabled one has Disabled set), and those of File the store has never
// held, as read at most Refresh ago. The map is shared: callers must not
// change it.
func (d *Directory) Partners(ctx context.Context) (map[string]outbox.Partner, error) {
	s, err := d.current(ctx)
	return s.partners, err
}

// Secrets are the partner's live signing secrets, newest first: each
// signs a delivery (provider.SignStandard), so during a rotation's
// overlap the partner verifies with either. A partner with none stored
// gets Fallback's.
func (d *Directory) Secrets(ctx context.Context, partnerID string) ([]string, error) {
	s, err := d.current(ctx)
	if err != nil {
		return nil, err
	}
	now := d.cfg.Now()
	stored := s.secrets[partnerID]
	var out []string
	for i := len(stored) - 1; i >= 0; i-- {
		if sec := stored[i]; sec.notAfter == nil || now.Before(*sec.notAfter) {
			out = append(out, sec.value)
		}
	}
	if len(out) == 0 && d.cfg.Fallback != nil {
		return d.cfg.Fallback.Secrets(ctx, partnerID)
	}
	return out, nil
}

// current is the snapshot, read again when it is older than Refresh. A
// failed read is the caller's error: the relay defers the batch.
func (d *Directory) current(ctx context.Context) (snapshot, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.cfg.Now()
	if d.snap.partners != nil && now.Sub(d.loaded) < d.cfg.Refresh {
		return d.snap, nil
	}
	next, err := d.read(ctx)
	if err != nil {
		return snapshot{}, err
	}
	d.snap, d.loaded = next, now
	return next, nil
}
