package vault

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/store"
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
