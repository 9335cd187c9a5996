package vault

import (
	"time"

	"github.com/streamops/streamops/internal/store"
)

// subject is a data subject as the vault decides on it, mapped once from
// its pii_subjects document.
type subject struct {
	id         string
	generation int
	public     []byte
	wrapped    []byte
	anchors    []string
	held       map[string]int
	places     map[string]int
	createdAt  time.Time
	lastSeenAt time.Time
	expireAt   *time.Time
	erasures   []erasure
}

// live says whether the subject's current generation can still be opened.
func (s subject) live() bool { return len(s.wrapped) > 0 }

// erasure is one erasure of a generation of a subject.
type erasure struct {
	receiptID  string
	generation int
	erasedAt   time.Time
	erasedBy   string
	request    string
	held       map[string]int
	places     map[string]int
}

func subjectOf(d store.PIISubject) subject {
	s := subject{id: d.ID, generation: d.Generation, public: d.PublicKey, wrapped: d.WrappedKey, anchors: d.Anchors,
		held: d.Held, places: d.Places, createdAt: d.CreatedAt.UTC(), lastSeenAt: d.LastSeenAt.UTC(), expireAt: d.ExpireAt}
	for _, e := range d.Erasures {
		s.erasures = append(s.erasures, erasure{receiptID: e.ReceiptID, generation: e.Generation, erasedAt: e.ErasedAt.UTC(),
			erasedBy: e.ErasedBy, request: e.Request, held: e.Held, places: e.Places})
	}
	return s
}

func subjectsOf(ds []store.PIISubject) []subject {
	out := make([]subject, len(ds))
	for i, d := range ds {
		out[i] = subjectOf(d)
	}
	return out
}

// document is e as stored.
func (e erasure) document() store.PIISubjectErasure {
	return store.PIISubjectErasure{ReceiptID: e.receiptID, Generation: e.generation, ErasedAt: e.erasedAt, ErasedBy: e.erasedBy,
		Request: e.request, Held: e.held, Places: e.places}
}
