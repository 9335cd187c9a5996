package vault

import (
	"crypto/aes"
	"crypto/cipher"
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

// The HPKE suite a subject's sealing keys come from (RFC 9180, export
// only): DHKEM(X25519, HKDF-SHA256) and HKDF-SHA256. Each encapsulation
// to a subject's public key exports one AES-256-GCM key, which seals the
// values of that subject for a while (a sealer); every reference carries
// its encapsulation, so the subject's private key alone derives the key
// again.
var (
	kdf       = hpke.HKDFSHA256()
	exportKey = "streamops/pii/v1 value key"
)

// sealer seals values of one subject generation under one exported key.
type sealer struct {
	enc  []byte
	aead cipher.AEAD
}

// newSealer encapsulates to a subject's public key and exports its key.
func newSealer(public []byte, subject string) (*sealer, error) {
	pk, err := ecdh.X25519().NewPublicKey(public)
	if err != nil {
		return nil, fmt.Errorf("vault: subject %s public key: %w", subject, err)
	}
	hpk, err := hpke.NewDHKEMPublicKey(pk)
	if err != nil {
		return nil, fmt.Errorf("vault: subject %s public key: %w", subject, err)
	}
	enc, s, err := hpke.NewSender(hpk, kdf, hpke.ExportOnly(), info(subject))
	if err != nil {
		return nil, fmt.Errorf("vault: seal: %w", err)
	}
	key, err := s.Export(exportKey, 32)
	if err != nil {
		return nil, fmt.Errorf("vault: seal: %w", err)
	}
	a, err := gcmOf(key)
	if err != nil {
		return nil, err
	}
	return &sealer{enc: enc, aead: a}, nil
}

// openerKey derives again the key of the sealer whose encapsulation is enc.
func openerKey(private []byte, subject string, enc []byte) (cipher.AEAD, error) {
	k, err := ecdh.X25519().NewPrivateKey(private)
	if err != nil {
		return nil, fmt.Errorf("vault: subject %s private key: %w", subject, err)
	}
	hk, err := hpke.NewDHKEMPrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("vault: subject %s private key: %w", subject, err)
	}
	r, err := hpke.NewRecipient(enc, hk, kdf, hpke.ExportOnly(), info(subject))
	if err != nil {
		return nil, fmt.Errorf("%w: its encapsulation does not open under subject %s", ErrDamaged, subject)
	}
	key, err := r.Export(exportKey, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	return gcmOf(key)
}

func gcmOf(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("vault: value key: %w", err)
	}
	return cipher.NewGCM(block)
}

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

// info binds a sealer to its subject generation: a reference moved to
// another subject does not open.
func info(subject string) []byte { return []byte("streamops/pii/v1|" + subject) }

// tagSize is the length of a reference's tag: an HMAC of its category
// and value under the index key, the same each time the value is sealed,
// so two references to one value compare equal (Canonical) though each
// sealing is randomised.
const tagSize = 16

// encSize is the length of an X25519 encapsulation.
const encSize = 32

func tagOf(indexKey []byte, f pii.Finding) []byte {
	m := hmac.New(sha256.New, indexKey)
	m.Write([]byte("tag\x00" + string(f.Category) + "\x00"))
	m.Write([]byte(f.Value))
	return m.Sum(nil)[:tagSize]
}

// seal seals f's value with s for subject (id.generation), the category as
// additional data: base64url(tag || enc || nonce || ciphertext).
func (s *sealer) seal(subject string, tag []byte, f pii.Finding) (pii.Reference, error) {
	kind := byte(plainText)
	if f.Whole {
		kind = plainJSON
	}
	out := make([]byte, 0, tagSize+encSize+s.aead.NonceSize()+1+len(f.Value)+s.aead.Overhead())
	out = append(append(out, tag[:tagSize]...), s.enc...)
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return pii.Reference{}, fmt.Errorf("vault: seal: %w", err)
	}
	out = append(out, nonce...)
	out = s.aead.Seal(out, nonce, append([]byte{kind}, f.Value...), []byte(f.Category))
	return pii.Reference{Category: f.Category, Subject: subject, Sealed: base64.RawURLEncoding.EncodeToString(out)}, nil
}

// sealedParts splits a reference's sealed part: the encapsulation, the
// nonce and the ciphertext (after the tag).
func sealedParts(ref pii.Reference) (enc, nonce, ct []byte, err error) {
	raw, err := base64.RawURLEncoding.DecodeString(ref.Sealed)
	const nonceSize = 12
	if err != nil || len(raw) <= tagSize+encSize+nonceSize {
		return nil, nil, nil, fmt.Errorf("%w: not a sealed value", ErrDamaged)
	}
	raw = raw[tagSize:]
	return raw[:encSize], raw[encSize : encSize+nonceSize], raw[encSize+nonceSize:], nil
}

// open opens ct with the sealer key a: the value and whether it is a whole
// JSON value (else text from inside a string).
func open(a cipher.AEAD, ref pii.Reference, nonce, ct []byte) (value string, whole bool, err error) {
	pt, err := a.Open(nil, nonce, ct, []byte(ref.Category))
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
