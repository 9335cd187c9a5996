package vault

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

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
	kind, n := r.named()
	if n != 1 {
		return "", ErrBadRequest
	}
	if kind == "phone" && normalisePhone(r.Phone) == "" {
		return "", fmt.Errorf("%w: the phone number has no digits", ErrBadRequest)
	}
	return kind, nil
}

// Named says how many of email, phone and subjectId r sets: a request
// names its subject when exactly one is set.
func (r Request) Named() int {
	_, n := r.named()
	return n
}

// named is the last field r sets ("email", "phone", "subjectId") and how
// many it sets.
func (r Request) named() (kind string, n int) {
	for _, f := range []struct{ name, value string }{{"email", r.Email}, {"phone", r.Phone}, {"subjectId", r.SubjectID}} {
		if f.value != "" {
			n, kind = n+1, f.name
		}
	}
	return kind, n
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
