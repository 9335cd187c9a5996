package vault

import (
	"context"
	"errors"
	"fmt"
)

// RewrapStats is what a rewrap did.
type RewrapStats struct {
	// Rewrapped subjects now hold their key wrapped by the vault's
	// key-encryption key.
	Rewrapped int `json:"rewrapped"`
	// Skipped subjects were erased or rewrapped by another writer meanwhile.
	Skipped int `json:"skipped"`
}

// rewrapPage is how many subjects one store read of a rewrap takes.
const rewrapPage = 500

// Rewrap moves every live subject's private key from the key-encryption
// key from to the vault's own: each is unwrapped with from and wrapped
// again, and its data is not touched (the key pair stays, so every
// reference already written keeps opening). It is safe to run again: a
// subject already moved unwraps with from only if from still opens it,
// which a KeyFile does for each of its generations. progress, when not
// nil, is told the running count after each page.
func (v *Vault) Rewrap(ctx context.Context, from Wrapper, progress func(RewrapStats)) (RewrapStats, error) {
	var st RewrapStats
	after := ""
	for {
		docs, err := v.cfg.Store.LivePIISubjects(ctx, after, rewrapPage)
		if err != nil {
			return st, err
		}
		for _, sub := range subjectsOf(docs) {
			private, err := from.Unwrap(ctx, sub.id, sub.wrapped)
			if err != nil {
				return st, fmt.Errorf("vault: rewrap subject %s: %w", sub.id, err)
			}
			wrapped, err := v.cfg.Wrapper.Wrap(ctx, sub.id, private)
			if err != nil {
				return st, fmt.Errorf("vault: rewrap subject %s: %w", sub.id, err)
			}
			ok, err := v.cfg.Store.RewrapPIISubject(ctx, sub.id, sub.generation, sub.wrapped, wrapped)
			if err != nil {
				return st, err
			}
			if ok {
				st.Rewrapped++
			} else {
				st.Skipped++
			}
			v.dropKeys(subjectRef(sub.id, sub.generation))
			after = sub.id
		}
		if progress != nil {
			progress(st)
		}
		if len(docs) < rewrapPage {
			return st, nil
		}
	}
}

// Rotator is a key-encryption key that can add a generation (KeyFile).
type Rotator interface{ Rotate() error }

// ErrCannotRotate: the vault's key-encryption key is not one StreamOps
// rotates (AWS KMS rotates its key material itself, and every earlier
// version keeps unwrapping).
var ErrCannotRotate = errors.New("vault: this key-encryption key rotates itself: nothing to rewrap")

// Rotate adds a generation to the vault's key file and rewraps every
// subject's key with it (Rewrap from the same file, which opens every
// generation), so the older generations then wrap nothing.
func (v *Vault) Rotate(ctx context.Context, progress func(RewrapStats)) (RewrapStats, error) {
	r, ok := v.cfg.Wrapper.(Rotator)
	if !ok {
		return RewrapStats{}, ErrCannotRotate
	}
	if err := r.Rotate(); err != nil {
		return RewrapStats{}, err
	}
	return v.Rewrap(ctx, v.cfg.Wrapper, progress)
}
