package vault

import (
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/streamops/streamops/internal/pii"
)

// The HPKE suite every reference is sealed with (RFC 9180):
// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM.
var (
	kdf  = hpke.HKDFSHA256()
	aead = hpke.AES128GCM()
)

// newKeyPair makes a subject's key pair (X25519).
func newKeyPair() (public, private []byte, err error) {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("vault: new key pair: %w", err)
	}
	return k.PublicKey().Bytes(), k.Bytes(), nil
}

// What a sealed plaintext's first byte says the rest is.
const (
	plainJSON = 'j' // a whole JSON value as sent
	plainText = 't' // text from inside a string
)

// info binds a sealed value to its subject generation and category, so a
// reference relabelled or moved to another subject does not open.
func info(subject string, category pii.Category) []byte {
	return []byte("streamops/pii/v1|" + subject + "|" + string(category))
}

// tagSize is the length of a reference's tag: an HMAC of its category
// and value under the index key, the same each time the value is sealed,
// so two references to one value compare equal (Canonical) though each
// sealing is randomised.
const tagSize = 16

func tagOf(indexKey []byte, f pii.Finding) []byte {
	m := hmac.New(sha256.New, indexKey)
	m.Write([]byte("tag\x00" + string(f.Category) + "\x00"))
	m.Write([]byte(f.Value))
	return m.Sum(nil)[:tagSize]
}

// seal seals f's value to the public key of subject (id.generation), the
// tag first: base64url(tag || HPKE enc || ciphertext).
func seal(public []byte, subject string, tag []byte, f pii.Finding) (pii.Reference, error) {
	pk, err := ecdh.X25519().NewPublicKey(public)
	if err != nil {
		return pii.Reference{}, fmt.Errorf("vault: subject %s public key: %w", subject, err)
	}
	hpk, err := hpke.NewDHKEMPublicKey(pk)
	if err != nil {
		return pii.Reference{}, fmt.Errorf("vault: subject %s public key: %w", subject, err)
	}
	kind := byte(plainText)
	if f.Whole {
		kind = plainJSON
	}
	ct, err := hpke.Seal(hpk, kdf, aead, info(subject, f.Category), append([]byte{kind}, f.Value...))
	if err != nil {
		return pii.Reference{}, fmt.Errorf("vault: seal: %w", err)
	}
	return pii.Reference{Category: f.Category, Subject: subject, Sealed: base64.RawURLEncoding.EncodeToString(append(tag[:tagSize:tagSize], ct...))}, nil
}

// open opens ref with the subject's private key: the value and whether it
// is a whole JSON value (else text from inside a string).
func open(private []byte, ref pii.Reference) (value string, whole bool, err error) {
	k, err := ecdh.X25519().NewPrivateKey(private)
	if err != nil {
		return "", false, fmt.Errorf("vault: subject %s private key: %w", ref.Subject, err)
	}
	hk, err := hpke.NewDHKEMPrivateKey(k)
	if err != nil {
		return "", false, fmt.Errorf("vault: subject %s private key: %w", ref.Subject, err)
	}
	ct, err := base64.RawURLEncoding.DecodeString(ref.Sealed)
	if err != nil || len(ct) <= tagSize {
		return "", false, fmt.Errorf("%w: not a sealed value", ErrDamaged)
	}
	pt, err := hpke.Open(hk, kdf, aead, info(ref.Subject, ref.Category), ct[tagSize:])
	if err != nil || len(pt) == 0 || (pt[0] != plainJSON && pt[0] != plainText) {
		return "", false, fmt.Errorf("%w: it does not open under subject %s", ErrDamaged, ref.Subject)
	}
	return string(pt[1:]), pt[0] == plainJSON, nil
}

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// blindIndex is the anchor of an email or phone number: an HMAC under the
// index key, so the store can find a subject by its email without holding
// it. kind and the normalised value both go in.
func blindIndex(indexKey []byte, kind, value string) string {
	m := hmac.New(sha256.New, indexKey)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return strings.ToLower(b32.EncodeToString(m.Sum(nil)[:16]))
}

// subjectRef is a subject's id with its generation, as references name it.
func subjectRef(id string, generation int) string { return id + "." + strconv.Itoa(generation) }

// parseSubjectRef splits a reference's subject into id and generation
// (generation 1 when it names none).
func parseSubjectRef(s string) (id string, generation int) {
	id, gen, ok := strings.Cut(s, ".")
	if !ok {
		return s, 1
	}
	n, err := strconv.Atoi(gen)
	if err != nil {
		return s, 0
	}
	return id, n
}

// Anchor kinds: what an anchor was made from.
const (
	anchorEmail = "email"
	anchorPhone = "phone"
	anchorDoc   = "doc" // a document with no email or phone: its own subject
)

// normaliseEmail is the form an email's anchor is made from: trimmed and
// lower-cased (mailboxes are matched case-insensitively in practice).
func normaliseEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// normalisePhone keeps a leading '+' and the digits, so "+49 151 1234-5678"
// and "+4915112345678" are one number.
func normalisePhone(s string) string {
	var b strings.Builder
	for i, r := range strings.TrimSpace(s) {
		switch {
		case r == '+' && i == 0:
			b.WriteRune(r)
		case unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
