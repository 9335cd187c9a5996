package store

import (
	"errors"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/mongo"
)

// ErrDuplicate is returned when a write collides with a unique key
// (event_id, provider+provider_event_id, outbox id, …). Every write is keyed
// by a deterministic id, so a duplicate means "already done": callers treat
// it as success.
var ErrDuplicate = errors.New("store: duplicate key")

// ErrNotFound is returned when a document looked up by id does not exist.
var ErrNotFound = errors.New("store: not found")

// isDuplicate recognises a duplicate-key error from either engine: the
// official driver's typed error and lungo's plain-text one.
func isDuplicate(err error) bool {
	return err != nil && (mongo.IsDuplicateKeyError(err) || lungo.IsUniquenessError(err))
}

// normalise maps engine errors onto the package's sentinel errors.
func normalise(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return ErrNotFound
	case isDuplicate(err):
		return errors.Join(ErrDuplicate, err)
	}
	return err
}

// duplicateIndexes returns the positions of the operations of a bulk write
// that failed only because of a duplicate key, and the first other error.
// lungo reports mongo.WriteErrors; the driver a mongo.BulkWriteException.
func duplicateIndexes(err error) (dups map[int]bool, other error) {
	if err == nil {
		return nil, nil
	}
	var writeErrs mongo.WriteErrors
	var bulkErr mongo.BulkWriteException
	switch {
	case errors.As(err, &bulkErr):
		for _, we := range bulkErr.WriteErrors {
			writeErrs = append(writeErrs, we.WriteError)
		}
		if bulkErr.WriteConcernError != nil {
			other = bulkErr
		}
	case errors.As(err, &writeErrs):
	default:
		return nil, err
	}
	dups = make(map[int]bool, len(writeErrs))
	for _, we := range writeErrs {
		if we.Code == 11000 || we.Code == 11001 || we.Code == 12582 || lungo.IsUniquenessError(errors.New(we.Message)) {
			dups[we.Index] = true
		} else if other == nil {
			other = we
		}
	}
	return dups, other
}
