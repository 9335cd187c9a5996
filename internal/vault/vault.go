package vault

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/streamops/streamops/internal/store"
)

// Store is what the vault keeps in the store (package store implements
// it): the subjects' keys and the record of resolutions.
type Store interface {
	PIISubject(ctx context.Context, id string) (store.PIISubject, error)
	PIISubjectsByAnchor(ctx context.Context, anchors ...string) ([]store.PIISubject, error)
	TouchPIISubject(ctx context.Context, t store.PIITouch) (store.PIISubject, bool, error)
	CreatePIISubject(ctx context.Context, sub store.PIISubject) (store.PIISubject, error)
	ErasePIISubject(ctx context.Context, id string, gen int, e store.PIISubjectErasure) (bool, error)
	RecordPIIResolution(ctx context.Context, r store.PIIResolution) error
	PIIResolutions(ctx context.Context, subject string) (int64, error)
	LivePIISubjects(ctx context.Context, after string, limit int) ([]store.PIISubject, error)
	RewrapPIISubject(ctx context.Context, id string, gen int, old, wrapped []byte) (bool, error)
}

// Config configures a Vault.
type Config struct {
	// Store keeps the subjects' keys. Required.
	Store Store
	// Wrapper wraps the subjects' private keys: a KeyFile under make run,
	// AWS KMS in the cloud. Required.
	Wrapper Wrapper
	// IndexKey is the blind-index key (32 bytes) that maps an email or
	// phone number to its subject. Required to protect, erase and look
	// up; a vault that only opens references (the outbox relay's) has
	// none.
	IndexKey []byte
	// Keep is how long a subject's key outlives its last datum: the
	// longest retention of any copy of the data (store.LongestRetention).
	// Zero, negative or store.Permanent keeps it until it is erased.
	Keep time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger logs erasures and refused resolutions (never a value);
	// default slog.Default().
	Logger *slog.Logger
	// SubjectCache is how long Protect seals to a subject's public key
	// without reading the subject again: within it, a subject seen again
	// costs no store command (its counts are added with the next read).
	// Data sealed in that time to a subject another process erased meanwhile
	// opens no more than the rest of its erased data. Default
	// DefaultSubjectCache; negative reads the subject every time.
	SubjectCache time.Duration
}

// DefaultSubjectCache is Config.SubjectCache's default.
const DefaultSubjectCache = 10 * time.Second

// maxCachedSubjects bounds the subjects a process keeps (SubjectCache).
const maxCachedSubjects = 10_000

func (c *Config) setDefaults() {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.SubjectCache == 0 {
		c.SubjectCache = DefaultSubjectCache
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Validate reports the first missing field.
func (c Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("vault: Config.Store is required")
	case c.Wrapper == nil:
		return errors.New("vault: Config.Wrapper is required")
	case len(c.IndexKey) > 0 && len(c.IndexKey) < 16:
		return errors.New("vault: Config.IndexKey must be at least 16 bytes")
	}
	return nil
}

// Vault seals personal data to its subjects and opens it where a step
// needs it. Safe for concurrent use.
type Vault struct {
	cfg     Config
	keys    sync.Map // subjectRef → unwrapped private key ([]byte), see privateKey
	openers sync.Map // subjectRef + "|" + enc → cipher.AEAD, see opener

	mu     sync.Mutex
	recent map[string]*recentSubject // by subject id, see Config.SubjectCache
}

// recentSubject is a subject Protect read less than SubjectCache ago, with
// the counts it added since (written with the next read).
type recentSubject struct {
	sub          subject
	at           time.Time
	held, places map[string]int
	sealer       *sealer // made at the first document sealed to it
}

// New returns a Vault.
func New(cfg Config) (*Vault, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Vault{cfg: cfg}, nil
}

// NewInMemory is a vault on st whose keys are kept in memory only
// (NewMemoryKeys): for a store kept in memory, whose data goes with the
// process as these keys do.
func NewInMemory(st Store) (*Vault, error) {
	k := NewMemoryKeys()
	return New(Config{Store: st, Wrapper: k, IndexKey: k.IndexKey()})
}

// Wrapper is the key-encryption key the vault wraps its subjects' keys
// with (the local key file, AWS KMS): partners' signing secrets (package
// partners) are sealed with it too, so one key mechanism guards both.
func (v *Vault) Wrapper() Wrapper { return v.cfg.Wrapper }

// Errors of a resolution.
var (
	// ErrErased: the reference's subject was erased (or its key expired
	// with the last of its data): the value is gone for good.
	ErrErased = errors.New("vault: the data subject was erased")
	// ErrDamaged: the reference does not open (altered, or not sealed by
	// this deployment's keys).
	ErrDamaged = errors.New("vault: the reference does not open")
	// ErrNotReference: the text is not a reference.
	ErrNotReference = errors.New("vault: not a personal-data reference")
	// ErrNoIndexKey: the vault has no index key (it only opens
	// references), so it can neither protect nor find a subject.
	ErrNoIndexKey = errors.New("vault: no index key: this function only opens references")
)
