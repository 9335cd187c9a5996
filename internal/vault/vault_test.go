package vault_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/vault"
)

// newVault is a vault on a real store (the engine the test tier runs on)
// with a fresh key file.
func newVault(t *testing.T) (*vault.Vault, *store.Store, *vault.KeyFile) {
	t.Helper()
	s := storetest.Open(t, store.Config{})
	kf, err := vault.LoadKeyFile(filepath.Join(t.TempDir(), ".streamops", "pii.key"))
	require.NoError(t, err)
	v, err := vault.New(vault.Config{Store: s, Wrapper: kf, IndexKey: kf.IndexKey(), Keep: 90 * 24 * time.Hour})
	require.NoError(t, err)
	return v, s, kf
}

var ctx = context.Background()

const order = `{"orderId":59734,"customer":{"email":"Jane.Doe@Example.com","phone":"+49 151 12345678","surname":"Doe"},` +
	`"note":"call jane.doe@example.com if late","amount":1250}`

// TestProtectLeavesNoValueInClear: every personal datum becomes a
// reference; what is not personal keeps its bytes.
func TestProtectLeavesNoValueInClear(t *testing.T) {
	v, _, _ := newVault(t)
	out, err := v.Protect(ctx, vault.Input{Doc: []byte(order), Place: "api:workflows"})
	require.NoError(t, err)
	for _, clear := range []string{"Jane.Doe@Example.com", "jane.doe@example.com", "12345678"} {
		assert.NotContains(t, string(out), clear)
	}
	assert.Contains(t, string(out), `"orderId":59734`)
	assert.Contains(t, string(out), `"amount":1250`)
	assert.True(t, json.Valid(out))
	var doc struct {
		Customer struct{ Email, Phone string }
		Note     string
	}
	require.NoError(t, json.Unmarshal(out, &doc))
	ref, ok := pii.ParseReference(doc.Customer.Email)
	require.True(t, ok, doc.Customer.Email)
	assert.Equal(t, pii.CategoryEmail, ref.Category)
	phone, ok := pii.ParseReference(doc.Customer.Phone)
	require.True(t, ok, doc.Customer.Phone)
	assert.Equal(t, ref.Subject, phone.Subject, "one document, one subject")
	assert.True(t, strings.HasPrefix(doc.Note, "call pii:email:"), doc.Note)

	again, err := v.Protect(ctx, vault.Input{Doc: out})
	require.NoError(t, err)
	assert.Equal(t, string(out), string(again), "protecting a protected document changes nothing")
}

// TestResolveGivesBackWhatWasSent: a whole value comes back as it was
// sent (with its JSON type), a match inside a string as text; each
// resolution is recorded.
func TestResolveGivesBackWhatWasSent(t *testing.T) {
	v, s, _ := newVault(t)
	out, err := v.Protect(ctx, vault.Input{Doc: []byte(order)})
	require.NoError(t, err)
	p := vault.Purpose{Who: "test", Why: "check", Ref: "t-1"}
	back, err := v.ResolveDocument(ctx, out, p, nil)
	require.NoError(t, err)
	assert.JSONEq(t, order, string(back))

	onlyEmail, err := v.ResolveDocument(ctx, out, p, func(c pii.Category) bool { return c == pii.CategoryEmail })
	require.NoError(t, err)
	assert.Contains(t, string(onlyEmail), "Jane.Doe@Example.com")
	assert.NotContains(t, string(onlyEmail), "12345678", "the phone is not allowed: it stays a reference")

	var doc struct{ Customer struct{ Email string } }
	require.NoError(t, json.Unmarshal(out, &doc))
	value, whole, err := v.Resolve(ctx, doc.Customer.Email, p)
	require.NoError(t, err)
	assert.True(t, whole)
	assert.Equal(t, `"Jane.Doe@Example.com"`, value)

	infos, err := v.Lookup(ctx, vault.Request{Email: "jane.doe@example.com"})
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Positive(t, infos[0].Resolutions)
	n, err := s.PIIResolutions(ctx, infos[0].SubjectID)
	require.NoError(t, err)
	assert.Equal(t, infos[0].Resolutions, n)
}

// TestEraseMakesEveryCopyUnreadable: after an erasure by email, no
// reference of that person opens, whoever holds the copy, while another
// person's still does; a second erasure answers the same receipt; the
// next datum seen starts a new generation.
func TestEraseMakesEveryCopyUnreadable(t *testing.T) {
	cases := []struct {
		name string
		req  func(subjectID string) vault.Request
	}{
		{"by email", func(string) vault.Request { return vault.Request{Email: " JANE.DOE@example.com"} }},
		{"by phone", func(string) vault.Request { return vault.Request{Phone: "+4915112345678"} }},
		{"by subject id", func(id string) vault.Request { return vault.Request{SubjectID: id} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, _, _ := newVault(t)
			jane, err := v.Protect(ctx, vault.Input{Doc: []byte(order), Place: "webhook:acme"})
			require.NoError(t, err)
			bob, err := v.Protect(ctx, vault.Input{Doc: []byte(`{"email":"bob@example.org"}`)})
			require.NoError(t, err)
			infos, err := v.Lookup(ctx, vault.Request{Email: "jane.doe@example.com"})
			require.NoError(t, err)
			require.Len(t, infos, 1)
			assert.Equal(t, map[string]int{"webhook:acme": 1}, infos[0].Places)

			rc, err := v.Erase(ctx, c.req(infos[0].SubjectID), "admin-1")
			require.NoError(t, err)
			require.Len(t, rc.Subjects, 1)
			assert.Equal(t, infos[0].SubjectID, rc.Subjects[0].SubjectID)
			assert.Equal(t, "admin-1", rc.ErasedBy)
			assert.False(t, rc.Repeated)
			assert.NotContains(t, mustJSON(t, rc), "jane", "the receipt names no datum")

			p := vault.Purpose{Who: "test", Why: "after erasure"}
			after, err := v.ResolveDocument(ctx, jane, p, nil)
			require.NoError(t, err)
			assert.Equal(t, string(jane), string(after), "nothing of jane opens")
			var doc struct{ Customer struct{ Email string } }
			require.NoError(t, json.Unmarshal(jane, &doc))
			_, _, err = v.Resolve(ctx, doc.Customer.Email, p)
			assert.ErrorIs(t, err, vault.ErrErased)
			other, err := v.ResolveDocument(ctx, bob, p, nil)
			require.NoError(t, err)
			assert.JSONEq(t, `{"email":"bob@example.org"}`, string(other), "another person's data still opens")

			again, err := v.Erase(ctx, c.req(infos[0].SubjectID), "admin-2")
			require.NoError(t, err)
			assert.True(t, again.Repeated)
			assert.Equal(t, rc.ReceiptID, again.ReceiptID)
			assert.Equal(t, rc.Subjects, again.Subjects)
			assert.Equal(t, "admin-1", again.ErasedBy)

			later, err := v.Protect(ctx, vault.Input{Doc: []byte(`{"email":"jane.doe@example.com"}`)})
			require.NoError(t, err)
			back, err := v.ResolveDocument(ctx, later, p, nil)
			require.NoError(t, err)
			assert.JSONEq(t, `{"email":"jane.doe@example.com"}`, string(back), "data seen after the erasure is a new generation")
			var ref struct{ Email string }
			require.NoError(t, json.Unmarshal(later, &ref))
			r, _ := pii.ParseReference(ref.Email)
			assert.True(t, strings.HasSuffix(r.Subject, ".2"), r.Subject)
		})
	}
}

// TestEraseReachesDataSeenBesideAnotherAnchor: a phone number seen beside
// an email links the two; erasing by the phone also erases what was seen
// under the email, and the other way round.
func TestEraseReachesDataSeenBesideAnotherAnchor(t *testing.T) {
	v, _, _ := newVault(t)
	both, err := v.Protect(ctx, vault.Input{Doc: []byte(`{"email":"ann@example.com","phone":"+33612345678","name":"Lee"}`)})
	require.NoError(t, err)
	phoneOnly, err := v.Protect(ctx, vault.Input{Doc: []byte(`{"phone":"+33 6 12 34 56 78","name":"Ann Lee"}`)})
	require.NoError(t, err)
	rc, err := v.Erase(ctx, vault.Request{Email: "ann@example.com"}, "admin")
	require.NoError(t, err)
	assert.Len(t, rc.Subjects, 2, "the email's subject and, through the phone, the phone's")
	p := vault.Purpose{Who: "test"}
	for _, doc := range [][]byte{both, phoneOnly} {
		after, err := v.ResolveDocument(ctx, doc, p, nil)
		require.NoError(t, err)
		assert.NotContains(t, string(after), "Lee")
		assert.NotContains(t, string(after), "12345678")
	}
}

// TestEraseOfSomeoneNeverSeen answers an empty receipt, the same each
// time, and a request naming no one is refused.
func TestEraseOfSomeoneNeverSeen(t *testing.T) {
	v, _, _ := newVault(t)
	a, err := v.Erase(ctx, vault.Request{Email: "nobody@example.com"}, "admin")
	require.NoError(t, err)
	b, err := v.Erase(ctx, vault.Request{Email: "nobody@example.com"}, "admin")
	require.NoError(t, err)
	assert.Empty(t, a.Subjects)
	assert.Equal(t, a.ReceiptID, b.ReceiptID)
	for _, r := range []vault.Request{{}, {Email: "a@b.co", Phone: "+1 555"}, {Phone: "call me"}} {
		_, err := v.Erase(ctx, r, "admin")
		assert.ErrorIs(t, err, vault.ErrBadRequest, "%+v", r)
	}
}

// TestAKeyFileOpensOnlyItsOwnKeys: a reference sealed under one key file
// does not open under another; a rotated file still opens what the older
// generation wrapped, and wraps new keys with the newer.
func TestAKeyFileOpensOnlyItsOwnKeys(t *testing.T) {
	dir := t.TempDir()
	kf, err := vault.LoadKeyFile(filepath.Join(dir, "pii.key"))
	require.NoError(t, err)
	wrapped, err := kf.Wrap(ctx, "subject-a", []byte("private"))
	require.NoError(t, err)
	_, err = kf.Unwrap(ctx, "subject-b", wrapped)
	assert.ErrorIs(t, err, vault.ErrUnwrap, "bound to its subject")
	other, err := vault.LoadKeyFile(filepath.Join(dir, "other.key"))
	require.NoError(t, err)
	_, err = other.Unwrap(ctx, "subject-a", wrapped)
	assert.ErrorIs(t, err, vault.ErrUnwrap)

	require.NoError(t, kf.Rotate())
	reread, err := vault.LoadKeyFile(filepath.Join(dir, "pii.key"))
	require.NoError(t, err)
	got, err := reread.Unwrap(ctx, "subject-a", wrapped)
	require.NoError(t, err)
	assert.Equal(t, "private", string(got))
	newer, err := reread.Wrap(ctx, "subject-a", []byte("private"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(newer), "k2:"))
	assert.Equal(t, kf.IndexKey(), reread.IndexKey())
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestCanonicalTellsTheSameValueFromAnother: each protection seals
// differently, and the canonical forms of two protections of one
// document are equal, of documents that differ in a personal datum not.
func TestCanonicalTellsTheSameValueFromAnother(t *testing.T) {
	v, _, _ := newVault(t)
	a, err := v.Protect(ctx, vault.Input{Doc: []byte(order)})
	require.NoError(t, err)
	b, err := v.Protect(ctx, vault.Input{Doc: []byte(order)})
	require.NoError(t, err)
	c, err := v.Protect(ctx, vault.Input{Doc: []byte(strings.Replace(order, "+49 151 12345678", "+49 151 87654321", 1))})
	require.NoError(t, err)
	assert.NotEqual(t, string(a), string(b), "sealing is randomised")
	assert.Equal(t, string(vault.Canonical(a)), string(vault.Canonical(b)))
	assert.NotEqual(t, string(vault.Canonical(a)), string(vault.Canonical(c)), "another phone number is another document")
	assert.Equal(t, order, string(vault.Canonical([]byte(order))), "a document without references is its own canonical form")
}

// TestASubjectSeenAgainSoonCostsNoStoreCommand: within SubjectCache a
// subject seen again is sealed to without a store command, its counts
// written with the next read; a new anchor is written at once.
func TestASubjectSeenAgainSoonCostsNoStoreCommand(t *testing.T) {
	s := storetest.Open(t, store.Config{})
	kf := vault.NewMemoryKeys()
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	v, err := vault.New(vault.Config{Store: s, Wrapper: kf, IndexKey: kf.IndexKey(), SubjectCache: 10 * time.Second,
		Now: func() time.Time { return now }})
	require.NoError(t, err)
	protect := func(doc string) int64 {
		before := s.Commands()
		_, err := v.Protect(ctx, vault.Input{Doc: []byte(doc), Place: "api:tasks"})
		require.NoError(t, err)
		return s.Commands() - before
	}
	assert.Positive(t, protect(`{"email":"c@example.com"}`), "first sight: the subject is created")
	assert.Zero(t, protect(`{"email":"c@example.com","name":"C"}`), "seen again at once: no store command")
	assert.Positive(t, protect(`{"email":"c@example.com","phone":"+33612345678"}`), "a new anchor is stored at once")
	now = now.Add(11 * time.Second)
	assert.Positive(t, protect(`{"email":"c@example.com"}`), "after SubjectCache the subject is read again")
	infos, err := v.Lookup(ctx, vault.Request{Email: "c@example.com"})
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, 4, infos[0].Places["api:tasks"], "every document counted, the cached one with the next read")
	assert.Equal(t, 1, infos[0].Held["name"])
}

// TestAnAddressSentEncodedAnchorsItsPerson: an email sent percent-encoded
// is the same person as the address sent plainly, so erasing by the
// address reaches it.
func TestAnAddressSentEncodedAnchorsItsPerson(t *testing.T) {
	v, _, _ := newVault(t)
	enc, err := v.Protect(ctx, vault.Input{Doc: []byte(`{"link":"https://x.example/u?m=dana%40example.com"}`)})
	require.NoError(t, err)
	assert.NotContains(t, string(enc), "dana%40example.com")
	rc, err := v.Erase(ctx, vault.Request{Email: "dana@example.com"}, "admin")
	require.NoError(t, err)
	assert.Len(t, rc.Subjects, 1)
	after, err := v.ResolveDocument(ctx, enc, vault.Purpose{Who: "test"}, nil)
	require.NoError(t, err)
	assert.NotContains(t, string(after), "dana")
}

// TestAnAlteredReferenceDoesNotOpen: a reference relabelled to another
// category, moved to another subject or with a byte changed opens
// nothing (ErrDamaged); the untouched one opens.
func TestAnAlteredReferenceDoesNotOpen(t *testing.T) {
	v, _, _ := newVault(t)
	refOf := func(doc string) pii.Reference {
		out, err := v.Protect(ctx, vault.Input{Doc: []byte(doc)})
		require.NoError(t, err)
		var d struct{ Email string }
		require.NoError(t, json.Unmarshal(out, &d))
		r, ok := pii.ParseReference(d.Email)
		require.True(t, ok, d.Email)
		return r
	}
	ann, bea := refOf(`{"email":"ann@example.com"}`), refOf(`{"email":"bea@example.com"}`)
	// Another base64url character in the middle of the ciphertext: still a
	// reference by its grammar, no longer what was sealed.
	flipped := []byte(ann.Sealed)
	i := len(flipped) - 5
	if flipped[i] == 'A' {
		flipped[i] = 'B'
	} else {
		flipped[i] = 'A'
	}
	cases := []struct {
		name string
		ref  pii.Reference
		err  error
	}{
		{"untouched", ann, nil},
		{"another category", pii.Reference{Category: pii.CategoryPhone, Subject: ann.Subject, Sealed: ann.Sealed}, vault.ErrDamaged},
		{"another subject", pii.Reference{Category: ann.Category, Subject: bea.Subject, Sealed: ann.Sealed}, vault.ErrDamaged},
		{"a byte changed", pii.Reference{Category: ann.Category, Subject: ann.Subject, Sealed: string(flipped)}, vault.ErrDamaged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			value, _, err := v.Resolve(ctx, c.ref.String(), vault.Purpose{Who: "test"})
			if c.err == nil {
				require.NoError(t, err)
				assert.Equal(t, `"ann@example.com"`, value)
				return
			}
			assert.ErrorIs(t, err, c.err)
			assert.Empty(t, value)
		})
	}
}
