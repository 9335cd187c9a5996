package vault_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/vault"
)

// onlyWraps is a key-encryption key that cannot rotate (as KMS, to
// StreamOps).
type onlyWraps struct{ vault.Wrapper }

// TestRotationRewrapsEveryKeyAndKeepsEveryReference: rotating the key
// file rewraps every live subject's key with the new generation and every
// reference still opens; moving to another key-encryption key (Rewrap
// from the old) leaves the old one unable to open anything; a key that
// rotates itself is refused.
func TestRotationRewrapsEveryKeyAndKeepsEveryReference(t *testing.T) {
	s := storetest.Open(t, store.Config{})
	dir := t.TempDir()
	a, err := vault.LoadKeyFile(filepath.Join(dir, "a.key"))
	require.NoError(t, err)
	v, err := vault.New(vault.Config{Store: s, Wrapper: a, IndexKey: a.IndexKey()})
	require.NoError(t, err)
	var docs [][]byte
	for _, d := range []string{`{"email":"one@example.com"}`, `{"email":"two@example.com"}`, `{"email":"three@example.com"}`} {
		out, err := v.Protect(ctx, vault.Input{Doc: []byte(d)})
		require.NoError(t, err)
		docs = append(docs, out)
	}
	_, err = v.Erase(ctx, vault.Request{Email: "three@example.com"}, "admin")
	require.NoError(t, err)
	opens := func(v *vault.Vault, doc []byte) bool {
		out, err := v.ResolveDocument(ctx, doc, vault.Purpose{Who: "test"}, nil)
		require.NoError(t, err)
		return string(out) != string(doc)
	}

	var seen []vault.RewrapStats
	st, err := v.Rotate(ctx, func(p vault.RewrapStats) { seen = append(seen, p) })
	require.NoError(t, err)
	assert.Equal(t, vault.RewrapStats{Rewrapped: 2}, st, "the live subjects; the erased one holds no key")
	assert.NotEmpty(t, seen, "progress is reported")
	for _, id := range subjectIDs(t, v) {
		sub, err := s.PIISubject(context.Background(), id)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(sub.WrappedKey), "k2:"), "wrapped by the new generation")
	}
	assert.True(t, opens(v, docs[0]) && opens(v, docs[1]), "every reference still opens")
	assert.False(t, opens(v, docs[2]), "the erased one still does not")

	b, err := vault.LoadKeyFile(filepath.Join(dir, "b.key"))
	require.NoError(t, err)
	moved, err := vault.New(vault.Config{Store: s, Wrapper: b, IndexKey: a.IndexKey()})
	require.NoError(t, err)
	st, err = moved.Rewrap(ctx, a, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Rewrapped)
	assert.True(t, opens(moved, docs[0]), "the new key opens what was written before")
	fresh, err := vault.New(vault.Config{Store: s, Wrapper: a, IndexKey: a.IndexKey()})
	require.NoError(t, err)
	_, _, err = fresh.Resolve(ctx, firstReference(t, docs[0]), vault.Purpose{Who: "test"})
	assert.ErrorIs(t, err, vault.ErrUnwrap, "the old key opens nothing any more")

	kms, err := vault.New(vault.Config{Store: s, Wrapper: onlyWraps{b}, IndexKey: a.IndexKey()})
	require.NoError(t, err)
	_, err = kms.Rotate(ctx, nil)
	assert.ErrorIs(t, err, vault.ErrCannotRotate)
}

func subjectIDs(t *testing.T, v *vault.Vault) []string {
	var ids []string
	for _, e := range []string{"one@example.com", "two@example.com"} {
		infos, err := v.Lookup(ctx, vault.Request{Email: e})
		require.NoError(t, err)
		require.Len(t, infos, 1)
		ids = append(ids, infos[0].SubjectID)
	}
	return ids
}

func firstReference(t *testing.T, doc []byte) string {
	s := string(doc)
	i := strings.Index(s, "pii:")
	require.GreaterOrEqual(t, i, 0)
	return s[i : i+strings.IndexByte(s[i:], '"')]
}
