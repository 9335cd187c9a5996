package partners

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/vault"
)

// secretPrefix starts a Standard Webhooks secret: whsec_ and the base64
// of the key.
const secretPrefix = "whsec_"

// secretBytes is the length of a generated signing key: 32 random bytes,
// as Standard Webhooks suggests (24 to 64).
const secretBytes = 32

// newSecret is a fresh Standard Webhooks secret and its id.
func newSecret() (Secret, error) {
	key := make([]byte, secretBytes)
	id := make([]byte, 8)
	if _, err := rand.Read(key); err != nil {
		return Secret{}, fmt.Errorf("partners: generate a secret: %w", err)
	}
	if _, err := rand.Read(id); err != nil {
		return Secret{}, fmt.Errorf("partners: generate a secret: %w", err)
	}
	return Secret{ID: "sec_" + hex.EncodeToString(id), Value: secretPrefix + base64.StdEncoding.EncodeToString(key)}, nil
}

// subject binds a sealed secret to its partner and id (the wrapper's
// additional data): copied onto another partner or secret it does not
// open.
func subject(partnerID, secretID string) string {
	return "partner-secret:" + partnerID + "/" + secretID
}

// seal is s sealed for the partner; the error never carries the value.
func seal(ctx context.Context, w vault.Wrapper, partnerID string, s Secret) (store.PartnerSecret, error) {
	sealed, err := w.Wrap(ctx, subject(partnerID, s.ID), []byte(s.Value))
	if err != nil {
		return store.PartnerSecret{}, fmt.Errorf("partners: seal secret %s of partner %s: %w", s.ID, partnerID, err)
	}
	return store.PartnerSecret{ID: s.ID, Sealed: sealed, NotAfter: s.NotAfter}, nil
}

// open is a stored secret's value.
func open(ctx context.Context, w vault.Wrapper, partnerID string, s store.PartnerSecret) (string, error) {
	v, err := w.Unwrap(ctx, subject(partnerID, s.ID), s.Sealed)
	if err != nil {
		return "", fmt.Errorf("partners: open secret %s of partner %s: %w", s.ID, partnerID, err)
	}
	return string(v), nil
}
