package vault

import (
	"context"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/pii"
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

// Input is one document to protect.
type Input struct {
	// Doc is the JSON document.
	Doc []byte
	// Scrubber finds the personal data; nil is pii.Default.
	Scrubber *pii.Scrubber
	// Place says where the document came in ("webhook:stripe",
	// "api:workflows"), for a subject's lookup.
	Place string
	// Key names the document's own subject when it holds no email or
	// phone number (a webhook event's id, so a redelivery seals to the
	// same subject); empty makes a new one.
	Key string
}

// Protect returns in.Doc with every personal datum the scrubber finds
// replaced by a reference sealed to the datum's subject: the subject of
// the document's first email (or else phone number), whose anchors are
// every email and phone number in it, or else a subject of the document
// alone. A document with nothing personal is returned as it is, with no
// store access.
func (v *Vault) Protect(ctx context.Context, in Input) ([]byte, error) {
	s := in.Scrubber
	if s == nil {
		s = pii.Default
	}
	found, err := s.Findings(in.Doc)
	if err != nil || len(found) == 0 {
		return in.Doc, err
	}
	if len(v.cfg.IndexKey) == 0 {
		return nil, ErrNoIndexKey
	}
	anchors := v.anchorsOf(found)
	id := ""
	if len(anchors) > 0 {
		id = anchors[0]
	} else {
		key := in.Key
		if key == "" {
			key = rand.Text()
		}
		id = blindIndex(v.cfg.IndexKey, anchorDoc, key)
	}
	held := map[string]int{}
	for _, f := range found {
		held[string(f.Category)]++
	}
	places := map[string]int{}
	if in.Place != "" {
		places[in.Place] = 1
	}
	sub, err := v.subject(ctx, id, anchors, held, places)
	if err != nil {
		return nil, err
	}
	ref := subjectRef(sub.id, sub.generation)
	sl, err := v.sealerFor(sub)
	if err != nil {
		return nil, err
	}
	return s.Replace(in.Doc, func(f pii.Finding) (string, error) {
		r, err := sl.seal(ref, tagOf(v.cfg.IndexKey, f), f)
		return r.String(), err
	})
}

// Canonical is doc with each reference reduced to what names its value
// (category, subject and tag, not the randomised sealing), so two
// protections of one document compare equal: what a fingerprint of a
// protected document hashes.
func Canonical(doc []byte) []byte {
	out, _ := rewriteReferences(doc, func(ref pii.Reference, _ string, start, end int) (int, int, []byte, error) {
		id, _ := parseSubjectRef(ref.Subject)
		tag := ref.Sealed
		if raw, err := base64.RawURLEncoding.DecodeString(ref.Sealed); err == nil && len(raw) > tagSize {
			tag = base64.RawURLEncoding.EncodeToString(raw[:tagSize])
		}
		return start, end, []byte("pii:" + string(ref.Category) + ":" + id + ":" + tag), nil
	})
	return out
}

// rewriteReferences returns doc with each reference rewritten by fn, which
// is given the reference, the whole text and its span, and returns the
// span to replace (it may widen it) and what goes there (nil: leave it).
// doc itself is returned when nothing changed.
func rewriteReferences(doc []byte, fn func(ref pii.Reference, text string, start, end int) (int, int, []byte, error)) ([]byte, error) {
	text := string(doc)
	var out []byte
	last := 0
	for from := 0; from < len(text); {
		start, end := pii.FindReference(text, from)
		if start < 0 {
			break
		}
		from = end
		ref, ok := pii.ParseReference(text[start:end])
		if !ok {
			continue
		}
		start, end, repl, err := fn(ref, text, start, end)
		if err != nil {
			return nil, err
		}
		if repl == nil {
			continue
		}
		out = append(append(out, text[last:start]...), repl...)
		last = end
	}
	if out == nil {
		return doc, nil
	}
	return append(out, text[last:]...), nil
}

// anchorsOf is the blind index of each email and phone number found,
// emails first, each once.
func (v *Vault) anchorsOf(found []pii.Finding) []string {
	var emails, phones []string
	seen := map[string]bool{}
	for _, f := range found {
		text, ok := findingText(f)
		if !ok {
			continue
		}
		if strings.Contains(text, "%") { // found through percent-encoding: anchor the address itself
			if un, err := url.QueryUnescape(text); err == nil {
				text = un
			}
		}
		var a string
		switch f.Category {
		case pii.CategoryEmail:
			if !strings.Contains(text, "@") {
				continue // inside an encoding (base64): not an address to anchor
			}
			a = blindIndex(v.cfg.IndexKey, anchorEmail, normaliseEmail(text))
		case pii.CategoryPhone:
			if p := normalisePhone(text); p != "" {
				a = blindIndex(v.cfg.IndexKey, anchorPhone, p)
			}
		}
		if a == "" || seen[a] {
			continue
		}
		seen[a] = true
		if f.Category == pii.CategoryEmail {
			emails = append(emails, a)
		} else {
			phones = append(phones, a)
		}
	}
	return append(emails, phones...)
}

// findingText is a finding's value as text: a whole JSON string or
// number's, or the text found inside a string; ok is false for an object
// or array.
func findingText(f pii.Finding) (string, bool) {
	if !f.Whole {
		return f.Value, true
	}
	var x any
	if err := json.Unmarshal([]byte(f.Value), &x); err != nil {
		return "", false
	}
	switch t := x.(type) {
	case string:
		return t, true
	case float64:
		return f.Value, true
	}
	return "", false
}

// subject returns the live subject id with what this document adds,
// creating its key pair (or its next generation after an erasure) first
// when there is none.
func (v *Vault) subject(ctx context.Context, id string, anchors []string, held, places map[string]int) (subject, error) {
	now := v.cfg.Now()
	if sub, ok := v.cached(id, anchors, held, places, now); ok {
		return sub, nil
	}
	held, places = v.takePending(id, held, places)
	t := store.PIITouch{SubjectID: id, Anchors: anchors, Held: held, Places: places, At: now, ExpireAt: v.expireAt(now)}
	doc, ok, err := v.cfg.Store.TouchPIISubject(ctx, t)
	if err != nil {
		return subject{}, err
	}
	if ok {
		sub := subjectOf(doc)
		v.remember(sub, now)
		return sub, nil
	}
	public, private, err := newKeyPair()
	if err != nil {
		return subject{}, err
	}
	wrapped, err := v.cfg.Wrapper.Wrap(ctx, id, private)
	if err != nil {
		return subject{}, fmt.Errorf("vault: wrap the key of a new subject: %w", err)
	}
	doc, err = v.cfg.Store.CreatePIISubject(ctx, store.PIISubject{ID: id, Generation: 1, PublicKey: public, WrappedKey: wrapped,
		Anchors: anchors, Held: held, Places: places, CreatedAt: now, LastSeenAt: now, ExpireAt: t.ExpireAt})
	if err != nil {
		return subject{}, err
	}
	created := subjectOf(doc)
	if !created.live() {
		return subject{}, fmt.Errorf("vault: subject %s has no key after its creation", id)
	}
	v.remember(created, now)
	return created, nil
}

// cached is the subject id when it was read less than SubjectCache ago
// and this document's anchors are all known to it, adding the document's
// counts to what the next read writes.
func (v *Vault) cached(id string, anchors []string, held, places map[string]int, now time.Time) (subject, bool) {
	if v.cfg.SubjectCache < 0 {
		return subject{}, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	r := v.recent[id]
	if r == nil || now.Sub(r.at) >= v.cfg.SubjectCache {
		return subject{}, false
	}
	for _, a := range anchors {
		if !slices.Contains(r.sub.anchors, a) {
			return subject{}, false // a new anchor must be stored at once: erasure finds the subject by it
		}
	}
	for k, n := range held {
		r.held[k] += n
	}
	for k, n := range places {
		r.places[k] += n
	}
	return r.sub, true
}

// takePending adds to held and places the counts the cache kept for id.
func (v *Vault) takePending(id string, held, places map[string]int) (map[string]int, map[string]int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	r := v.recent[id]
	if r == nil {
		return held, places
	}
	for k, n := range r.held {
		held[k] += n
	}
	for k, n := range r.places {
		places[k] += n
	}
	r.held, r.places = map[string]int{}, map[string]int{}
	return held, places
}

// remember keeps sub as read at now.
func (v *Vault) remember(sub subject, now time.Time) {
	if v.cfg.SubjectCache < 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.recent == nil || len(v.recent) >= maxCachedSubjects {
		v.recent = map[string]*recentSubject{} // a bound, not an LRU: the cache only saves reads
	}
	v.recent[sub.id] = &recentSubject{sub: sub, at: now, held: map[string]int{}, places: map[string]int{}}
}

// forget drops id from the cache (its erasure in this process).
func (v *Vault) forget(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.recent, id)
}

func (v *Vault) expireAt(now time.Time) *time.Time {
	if v.cfg.Keep <= 0 || v.cfg.Keep == store.Permanent {
		return nil
	}
	at := now.Add(v.cfg.Keep)
	return &at
}

// Purpose says who resolves a reference and why, for the record.
type Purpose struct {
	// Who is the function or principal ("task-processor").
	Who string
	// Why is the step that needs the value ("email_notification
	// recipient").
	Why string
	// Ref names what it is for (a task id, an outbox id).
	Ref string
}

// Resolve opens one reference: its value, and whether that is a whole JSON
// value (else text from inside a string). Every call is recorded, granted
// or not, without the value. An erased subject's reference is ErrErased.
func (v *Vault) Resolve(ctx context.Context, reference string, p Purpose) (value string, whole bool, err error) {
	ref, ok := pii.ParseReference(reference)
	if !ok {
		return "", false, ErrNotReference
	}
	subs := map[string]subject{}
	return v.resolve(ctx, ref, p, subs)
}

func (v *Vault) resolve(ctx context.Context, ref pii.Reference, p Purpose, subs map[string]subject) (string, bool, error) {
	id, gen := parseSubjectRef(ref.Subject)
	value, whole, err := v.open(ctx, ref, id, gen, subs)
	rec := store.PIIResolution{ID: uuid.NewString(), SubjectID: id, Generation: gen, Category: string(ref.Category),
		Who: p.Who, Why: p.Why, Ref: p.Ref, Granted: err == nil, At: v.cfg.Now()}
	if recErr := v.cfg.Store.RecordPIIResolution(ctx, rec); recErr != nil {
		return "", false, recErr // no value leaves without its record
	}
	return value, whole, err
}

func (v *Vault) open(ctx context.Context, ref pii.Reference, id string, gen int, subs map[string]subject) (string, bool, error) {
	sub, ok := subs[id]
	if !ok {
		doc, err := v.cfg.Store.PIISubject(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return "", false, fmt.Errorf("%w: subject %s is not held", ErrErased, id)
		}
		if err != nil {
			return "", false, err
		}
		sub = subjectOf(doc)
		subs[id] = sub
	}
	if !sub.live() || sub.generation != gen {
		v.dropKeys(ref.Subject)
		return "", false, fmt.Errorf("%w: subject %s generation %d", ErrErased, id, gen)
	}
	enc, nonce, ct, err := sealedParts(ref)
	if err != nil {
		return "", false, err
	}
	a, err := v.opener(ctx, sub, enc)
	if err != nil {
		return "", false, err
	}
	return open(a, ref, nonce, ct)
}

// sealerFor is the sealer of sub's current generation: the one this
// process made for it less than SubjectCache ago, else a new one.
func (v *Vault) sealerFor(sub subject) (*sealer, error) {
	v.mu.Lock()
	r := v.recent[sub.id]
	if r != nil && r.sub.generation == sub.generation && r.sealer != nil {
		defer v.mu.Unlock()
		return r.sealer, nil
	}
	v.mu.Unlock()
	sl, err := newSealer(sub.public, subjectRef(sub.id, sub.generation))
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	if r := v.recent[sub.id]; r != nil && r.sub.generation == sub.generation {
		r.sealer = sl
	}
	v.mu.Unlock()
	return sl, nil
}

// opener is the key of sub's sealer whose encapsulation is enc, derived
// once per process.
func (v *Vault) opener(ctx context.Context, sub subject, enc []byte) (cipher.AEAD, error) {
	k := subjectRef(sub.id, sub.generation) + "|" + string(enc)
	if a, ok := v.openers.Load(k); ok {
		return a.(cipher.AEAD), nil
	}
	private, err := v.privateKey(ctx, sub)
	if err != nil {
		return nil, err
	}
	a, err := openerKey(private, subjectRef(sub.id, sub.generation), enc)
	if err != nil {
		return nil, err
	}
	v.openers.Store(k, a)
	return a, nil
}

// dropKeys forgets what this process derived for the generation ref.
func (v *Vault) dropKeys(ref string) {
	v.keys.Delete(ref)
	v.openers.Range(func(k, _ any) bool {
		if strings.HasPrefix(k.(string), ref+"|") {
			v.openers.Delete(k)
		}
		return true
	})
}

// privateKey unwraps sub's private key, once per process and generation:
// every resolution reads the subject first, so an erasure elsewhere
// still refuses it.
func (v *Vault) privateKey(ctx context.Context, sub subject) ([]byte, error) {
	k := subjectRef(sub.id, sub.generation)
	if p, ok := v.keys.Load(k); ok {
		return p.([]byte), nil
	}
	p, err := v.cfg.Wrapper.Unwrap(ctx, sub.id, sub.wrapped)
	if err != nil {
		return nil, fmt.Errorf("vault: unwrap the key of subject %s: %w", sub.id, err)
	}
	v.keys.Store(k, p)
	return p, nil
}

// ResolveDocument returns doc with each reference whose category allow
// accepts opened in place: a reference that is a whole JSON string becomes
// the value as it was sent (a number, an object), one inside a longer
// string its text. References allow refuses, or whose subject was erased,
// stay as they are. Each opened reference is recorded.
func (v *Vault) ResolveDocument(ctx context.Context, doc []byte, p Purpose, allow func(pii.Category) bool) ([]byte, error) {
	subs := map[string]subject{}
	return rewriteReferences(doc, func(ref pii.Reference, text string, start, end int) (int, int, []byte, error) {
		if allow != nil && !allow(ref.Category) {
			return start, end, nil, nil
		}
		value, whole, err := v.resolve(ctx, ref, p, subs)
		if errors.Is(err, ErrErased) || errors.Is(err, ErrDamaged) {
			return start, end, nil, nil
		}
		if err != nil {
			return 0, 0, nil, err
		}
		wholeString := start > 0 && end < len(text) && text[start-1] == '"' && text[end] == '"' &&
			(start < 2 || text[start-2] != '\\')
		switch {
		case wholeString && whole:
			return start - 1, end + 1, []byte(value), nil
		case wholeString:
			return start - 1, end + 1, quote(value), nil
		}
		q := quote(value)
		return start, end, q[1 : len(q)-1], nil
	})
}

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// Request names one data subject: by an email, a phone number or a
// subject id (exactly one).
type Request struct {
	Email     string `json:"email,omitempty"`
	Phone     string `json:"phone,omitempty"`
	SubjectID string `json:"subjectId,omitempty"`
}

// RequestFor names the subject of id as a person would write it: an email
// address (it holds an @), a phone number (a + or only digits and
// separators), else a subject id.
func RequestFor(id string) Request {
	s := strings.TrimSpace(id)
	switch {
	case strings.Contains(s, "@"):
		return Request{Email: s}
	case strings.HasPrefix(s, "+") || strings.Trim(s, "0123456789 -().") == "":
		return Request{Phone: s}
	}
	return Request{SubjectID: s}
}

// ErrBadRequest: a Request that names no subject, or more than one way.
var ErrBadRequest = errors.New("vault: name the subject by exactly one of email, phone or subjectId")

// kind says how r names its subject ("email", "phone", "subjectId").
func (r Request) kind() (string, error) {
	n, kind := 0, ""
	for _, f := range []struct{ name, value string }{{"email", r.Email}, {"phone", r.Phone}, {"subjectId", r.SubjectID}} {
		if f.value != "" {
			n, kind = n+1, f.name
		}
	}
	if n != 1 {
		return "", ErrBadRequest
	}
	if kind == "phone" && normalisePhone(r.Phone) == "" {
		return "", fmt.Errorf("%w: the phone number has no digits", ErrBadRequest)
	}
	return kind, nil
}

// anchor is the blind index the request names, or "" for a subject id.
func (v *Vault) anchor(r Request) string {
	switch {
	case r.Email != "":
		return blindIndex(v.cfg.IndexKey, anchorEmail, normaliseEmail(r.Email))
	case r.Phone != "":
		return blindIndex(v.cfg.IndexKey, anchorPhone, normalisePhone(r.Phone))
	}
	return ""
}

// maxLinked bounds the subjects one request reaches through shared
// emails and phone numbers.
const maxLinked = 1000

// linked is every subject r reaches: the subjects whose data was seen
// beside its email or phone number, and, transitively, beside those
// subjects' other emails and phone numbers (the same person's data under
// more than one anchor). A subject id reaches that subject and what its
// anchors reach.
func (v *Vault) linked(ctx context.Context, r Request) ([]subject, error) {
	if len(v.cfg.IndexKey) == 0 {
		return nil, ErrNoIndexKey
	}
	found := map[string]subject{}
	var order []string
	add := func(subs ...subject) (fresh []string) {
		for _, s := range subs {
			if _, ok := found[s.id]; !ok {
				found[s.id] = s
				order = append(order, s.id)
				fresh = append(fresh, s.anchors...)
			}
		}
		return fresh
	}
	var frontier []string
	if a := v.anchor(r); a != "" {
		frontier = []string{a}
	} else {
		sub, err := v.cfg.Store.PIISubject(ctx, r.SubjectID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		frontier = add(subjectOf(sub))
	}
	asked := map[string]bool{}
	for len(frontier) > 0 && len(found) < maxLinked {
		var next []string
		for _, a := range frontier {
			if !asked[a] {
				asked[a] = true
				next = append(next, a)
			}
		}
		if len(next) == 0 {
			break
		}
		subs, err := v.cfg.Store.PIISubjectsByAnchor(ctx, next...)
		if err != nil {
			return nil, err
		}
		frontier = add(subjectsOf(subs)...)
	}
	out := make([]subject, len(order))
	for i, id := range order {
		out[i] = found[id]
	}
	return out, nil
}

// Receipt is the answer to an erasure: what was erased, when and by whom.
// It names no personal datum.
type Receipt struct {
	ReceiptID string    `json:"receiptId"`
	Request   string    `json:"request"`
	ErasedAt  time.Time `json:"erasedAt"`
	ErasedBy  string    `json:"erasedBy"`
	// Subjects are the generations whose keys were destroyed.
	Subjects []ErasedSubject `json:"subjects"`
	// Repeated is true when this request had been answered before: the
	// receipt is that one's, and nothing more was held.
	Repeated bool `json:"repeated"`
}

// ErasedSubject is one subject generation an erasure destroyed, with what
// it held.
type ErasedSubject struct {
	SubjectID  string         `json:"subjectId"`
	Generation int            `json:"generation"`
	Held       map[string]int `json:"held"`
	Places     map[string]int `json:"places"`
}

// Erase destroys the keys of every subject r reaches, so no copy of their
// data can be opened anywhere again. It is idempotent: asked again with
// nothing new held, it answers the first receipt (Repeated).
func (v *Vault) Erase(ctx context.Context, r Request, by string) (Receipt, error) {
	kind, err := r.kind()
	if err != nil {
		return Receipt{}, err
	}
	subs, err := v.linked(ctx, r)
	if err != nil {
		return Receipt{}, err
	}
	now := v.cfg.Now().UTC().Truncate(time.Millisecond)
	rc := Receipt{ReceiptID: uuid.NewString(), Request: kind, ErasedAt: now, ErasedBy: by, Subjects: []ErasedSubject{}}
	for _, s := range subs {
		if !s.live() {
			continue
		}
		e := erasure{receiptID: rc.ReceiptID, generation: s.generation, erasedAt: now, erasedBy: by, request: kind, held: s.held, places: s.places}
		ok, err := v.cfg.Store.ErasePIISubject(ctx, s.id, s.generation, e.document())
		if err != nil {
			return Receipt{}, err
		}
		v.dropKeys(subjectRef(s.id, s.generation))
		v.forget(s.id)
		if ok {
			rc.Subjects = append(rc.Subjects, ErasedSubject{SubjectID: s.id, Generation: s.generation, Held: orEmpty(s.held), Places: orEmpty(s.places)})
		}
	}
	if len(rc.Subjects) > 0 {
		v.cfg.Logger.InfoContext(ctx, "data subjects erased", "receiptId", rc.ReceiptID, "subjects", len(rc.Subjects), "by", by)
		return rc, nil
	}
	if prev, ok := lastReceipt(subs); ok {
		return prev, nil
	}
	// Nothing was ever held: the same (empty) receipt every time.
	rc.ReceiptID = events.DeriveID("", "erasure", kind, v.anchor(r), r.SubjectID)
	return rc, nil
}

// lastReceipt rebuilds the latest erasure's receipt from the subjects'
// records.
func lastReceipt(subs []subject) (Receipt, bool) {
	var latest *erasure
	for _, s := range subs {
		for i := range s.erasures {
			if e := &s.erasures[i]; latest == nil || e.erasedAt.After(latest.erasedAt) {
				latest = e
			}
		}
	}
	if latest == nil {
		return Receipt{}, false
	}
	rc := Receipt{ReceiptID: latest.receiptID, Request: latest.request, ErasedAt: latest.erasedAt, ErasedBy: latest.erasedBy,
		Subjects: []ErasedSubject{}, Repeated: true}
	for _, s := range subs {
		for _, e := range s.erasures {
			if e.receiptID == latest.receiptID {
				rc.Subjects = append(rc.Subjects, ErasedSubject{SubjectID: s.id, Generation: e.generation, Held: orEmpty(e.held), Places: orEmpty(e.places)})
			}
		}
	}
	return rc, true
}

func orEmpty(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// SubjectInfo is what is held for one subject, for an access request:
// counts and places, never values.
type SubjectInfo struct {
	SubjectID   string         `json:"subjectId"`
	Generation  int            `json:"generation"`
	Live        bool           `json:"live"`
	Held        map[string]int `json:"held"`
	Places      map[string]int `json:"places"`
	CreatedAt   time.Time      `json:"createdAt"`
	LastSeenAt  time.Time      `json:"lastSeenAt"`
	ExpireAt    *time.Time     `json:"expireAt,omitempty"`
	Resolutions int64          `json:"resolutions"`
	Erasures    []Erasure      `json:"erasures"`
}

// Erasure is one past erasure of a subject's generation.
type Erasure struct {
	ReceiptID  string    `json:"receiptId"`
	Generation int       `json:"generation"`
	ErasedAt   time.Time `json:"erasedAt"`
	ErasedBy   string    `json:"erasedBy"`
}

// Lookup says what is held for every subject r reaches.
func (v *Vault) Lookup(ctx context.Context, r Request) ([]SubjectInfo, error) {
	if _, err := r.kind(); err != nil {
		return nil, err
	}
	subs, err := v.linked(ctx, r)
	if err != nil {
		return nil, err
	}
	out := make([]SubjectInfo, 0, len(subs))
	for _, s := range subs {
		n, err := v.cfg.Store.PIIResolutions(ctx, s.id)
		if err != nil {
			return nil, err
		}
		info := SubjectInfo{SubjectID: s.id, Generation: s.generation, Live: s.live(), Held: orEmpty(s.held), Places: orEmpty(s.places),
			CreatedAt: s.createdAt, LastSeenAt: s.lastSeenAt, ExpireAt: s.expireAt, Resolutions: n, Erasures: []Erasure{}}
		for _, e := range s.erasures {
			info.Erasures = append(info.Erasures, Erasure{ReceiptID: e.receiptID, Generation: e.generation, ErasedAt: e.erasedAt, ErasedBy: e.erasedBy})
		}
		out = append(out, info)
	}
	return out, nil
}
