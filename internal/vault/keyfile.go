package vault

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Wrapper wraps a subject's private key under the key-encryption key and
// unwraps it again. subject binds the wrapped key to its subject: a
// wrapped key copied onto another subject does not unwrap.
type Wrapper interface {
	Wrap(ctx context.Context, subject string, key []byte) ([]byte, error)
	Unwrap(ctx context.Context, subject string, wrapped []byte) ([]byte, error)
}

// KeyFileName is the key file's name in a data directory.
const KeyFileName = "pii.key"

// KeyFile is the local key-encryption key and blind-index key of make run:
// a JSON file (mode 0600) that LoadKeyFile creates at first start. Keys
// holds every generation of the key-encryption key, the newest last: Wrap
// uses the newest, Unwrap the one a wrapped key names, so a rotated file
// still opens what the older generations wrapped.
type KeyFile struct {
	path string
	file keyFileDoc
}

type keyFileDoc struct {
	Version int          `json:"version"`
	Index   string       `json:"indexKey"` // base64, 32 bytes
	Keys    []keyFileKEK `json:"keys"`
}

type keyFileKEK struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Key     string    `json:"key"` // base64, 32 bytes (AES-256)
}

// LoadKeyFile reads the key file at path, creating it (and its directory)
// with fresh random keys when it does not exist.
func LoadKeyFile(path string) (*KeyFile, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return createKeyFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("vault: read key file: %w", err)
	}
	k := &KeyFile{path: path}
	if err := json.Unmarshal(raw, &k.file); err != nil {
		return nil, fmt.Errorf("vault: key file %s is not a StreamOps key file: %w", path, err)
	}
	if err := k.check(); err != nil {
		return nil, fmt.Errorf("vault: key file %s: %w", path, err)
	}
	return k, nil
}

func createKeyFile(path string) (*KeyFile, error) {
	k := &KeyFile{path: path, file: keyFileDoc{Version: 1, Index: randomKey()}}
	k.file.Keys = []keyFileKEK{{ID: "k1", Created: time.Now().UTC(), Key: randomKey()}}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("vault: create key file directory: %w", err)
	}
	raw, _ := json.MarshalIndent(k.file, "", "  ")
	// O_EXCL: two processes starting at once keep one file.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return LoadKeyFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("vault: create key file: %w", err)
	}
	if _, err := f.Write(raw); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("vault: write key file: %w", err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("vault: write key file: %w", err)
	}
	return k, f.Close()
}

// NewMemoryKeys is a KeyFile kept in memory only, for a store kept in
// memory (tests, a stack without a data directory): its keys go with the
// process, as the data does.
func NewMemoryKeys() *KeyFile {
	return &KeyFile{file: keyFileDoc{Version: 1, Index: randomKey(),
		Keys: []keyFileKEK{{ID: "k1", Created: time.Now().UTC(), Key: randomKey()}}}}
}

// Rotate adds a new key-encryption key generation and writes the file;
// keys wrapped before still unwrap (see Vault.Rewrap to move them).
func (k *KeyFile) Rotate() error {
	n := len(k.file.Keys) + 1
	k.file.Keys = append(k.file.Keys, keyFileKEK{ID: fmt.Sprintf("k%d", n), Created: time.Now().UTC(), Key: randomKey()})
	if k.path == "" {
		return nil
	}
	raw, _ := json.MarshalIndent(k.file, "", "  ")
	tmp := k.path + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return fmt.Errorf("vault: rotate key file: %w", err)
	}
	if err := os.Rename(tmp, k.path); err != nil {
		return fmt.Errorf("vault: rotate key file: %w", err)
	}
	return nil
}

func (k *KeyFile) check() error {
	if k.file.Version != 1 {
		return fmt.Errorf("version %d, want 1", k.file.Version)
	}
	if b, err := base64.StdEncoding.DecodeString(k.file.Index); err != nil || len(b) != 32 {
		return errors.New("indexKey is not 32 bytes of base64")
	}
	if len(k.file.Keys) == 0 {
		return errors.New("no keys")
	}
	for _, kek := range k.file.Keys {
		if b, err := base64.StdEncoding.DecodeString(kek.Key); err != nil || len(b) != 32 || kek.ID == "" {
			return fmt.Errorf("key %q is not an id and 32 bytes of base64", kek.ID)
		}
	}
	return nil
}

// IndexKey is the blind-index key: the HMAC key that maps an email or
// phone number to its subject.
func (k *KeyFile) IndexKey() []byte {
	b, _ := base64.StdEncoding.DecodeString(k.file.Index)
	return b
}

// Wrap seals key with the newest key-encryption key (AES-256-GCM, the
// subject as additional data): the key's id, a nonce and the sealed key.
func (k *KeyFile) Wrap(_ context.Context, subject string, key []byte) ([]byte, error) {
	kek := k.file.Keys[len(k.file.Keys)-1]
	aead, err := gcm(kek.Key)
	if err != nil {
		return nil, err
	}
	out := append([]byte(kek.ID), ':')
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	out = append(out, nonce...)
	return aead.Seal(out, nonce, key, []byte(subject)), nil
}

// Unwrap opens a key Wrap sealed for subject, with the generation it names.
func (k *KeyFile) Unwrap(_ context.Context, subject string, wrapped []byte) ([]byte, error) {
	for _, kek := range k.file.Keys {
		if len(wrapped) <= len(kek.ID) || string(wrapped[:len(kek.ID)+1]) != kek.ID+":" {
			continue
		}
		aead, err := gcm(kek.Key)
		if err != nil {
			return nil, err
		}
		rest := wrapped[len(kek.ID)+1:]
		if len(rest) < aead.NonceSize() {
			break
		}
		key, err := aead.Open(nil, rest[:aead.NonceSize()], rest[aead.NonceSize():], []byte(subject))
		if err != nil {
			return nil, fmt.Errorf("%w: the key does not open under subject %s", ErrUnwrap, subject)
		}
		return key, nil
	}
	return nil, fmt.Errorf("%w: no key in %s wrapped it", ErrUnwrap, k.path)
}

// ErrUnwrap: a wrapped key did not open (another key file, another
// subject, or damaged).
var ErrUnwrap = errors.New("vault: cannot unwrap the subject's key")

func gcm(b64 string) (cipher.AEAD, error) {
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("vault: key file key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("vault: key file key: %w", err)
	}
	return cipher.NewGCM(block)
}

func randomKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}
