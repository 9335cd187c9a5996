package vault

import (
	"context"
	"crypto/cipher"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/store"
)

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
