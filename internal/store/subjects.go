package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// The personal-data vault's collections (package vault): the data
// subjects' keys, and the record of every resolution. Neither holds a
// personal datum in clear.
const (
	CollPIISubjects    = "pii_subjects"
	CollPIIResolutions = "pii_resolutions"
)

// PIISubject is one data subject's key pair: every personal datum of the
// subject that StreamOps holds anywhere is sealed to PublicKey, and only
// WrappedKey (the private key, wrapped by the key-encryption key) opens
// it. Erasing the subject removes both (crypto-shredding) and keeps the
// receipt; the next datum seen for it starts a new Generation.
type PIISubject struct {
	ID         string `bson:"_id" json:"subjectId"`
	Generation int    `bson:"generation" json:"generation"`
	PublicKey  []byte `bson:"public_key,omitempty" json:"-"`
	WrappedKey []byte `bson:"wrapped_key,omitempty" json:"-"`
	// Anchors are the blind indexes of the emails and phone numbers seen
	// beside the subject's data: erasing by any of them reaches it.
	Anchors []string `bson:"anchors,omitempty" json:"-"`
	// Held counts the data sealed to the current generation by category,
	// Places by where they came in ("webhook:stripe", "api:workflows").
	Held       map[string]int `bson:"held,omitempty" json:"held,omitempty"`
	Places     map[string]int `bson:"places,omitempty" json:"places,omitempty"`
	CreatedAt  time.Time      `bson:"created_at" json:"createdAt"`
	LastSeenAt time.Time      `bson:"last_seen_at" json:"lastSeenAt"`
	// ExpireAt is when no copy of the subject's data can remain under the
	// retention rules (the last datum's time plus the longest retention):
	// the key goes then. Nil when a retention is permanent.
	ExpireAt *time.Time          `bson:"expire_at,omitempty" json:"expireAt,omitempty"`
	Erasures []PIISubjectErasure `bson:"erasures,omitempty" json:"erasures,omitempty"`
}

// Live says whether the subject's current generation can still be opened.
func (s PIISubject) Live() bool { return len(s.WrappedKey) > 0 }

// PIISubjectErasure is one erasure of a generation of a subject.
type PIISubjectErasure struct {
	ReceiptID  string         `bson:"receipt_id" json:"receiptId"`
	Generation int            `bson:"generation" json:"generation"`
	ErasedAt   time.Time      `bson:"erased_at" json:"erasedAt"`
	ErasedBy   string         `bson:"erased_by" json:"erasedBy"`
	Request    string         `bson:"request" json:"request"`
	Held       map[string]int `bson:"held,omitempty" json:"held,omitempty"`
	Places     map[string]int `bson:"places,omitempty" json:"places,omitempty"`
}

// PIIResolution records one resolution of a reference to its value:
// who, what (subject, generation, category), when and why, never the
// value.
type PIIResolution struct {
	ID         string    `bson:"_id" json:"resolutionId"`
	SubjectID  string    `bson:"subject_id" json:"subjectId"`
	Generation int       `bson:"generation" json:"generation"`
	Category   string    `bson:"category" json:"category"`
	Who        string    `bson:"who" json:"who"`
	Why        string    `bson:"why" json:"why"`
	Ref        string    `bson:"ref,omitempty" json:"ref,omitempty"`
	Granted    bool      `bson:"granted" json:"granted"`
	At         time.Time `bson:"at" json:"at"`
}

// PIITouch is what one document adds to a live subject.
type PIITouch struct {
	SubjectID string
	Anchors   []string
	Held      map[string]int
	Places    map[string]int
	At        time.Time
	ExpireAt  *time.Time
}

// PIISubject loads one subject (ErrNotFound when never seen).
func (s *Store) PIISubject(ctx context.Context, id string) (PIISubject, error) {
	sub, err := getByID[PIISubject](ctx, s.countedCollection(CollPIISubjects), id)
	if err != nil {
		return PIISubject{}, fmt.Errorf("store: load subject %s: %w", id, err)
	}
	return sub, nil
}

// PIISubjects loads the subjects whose ids are given; unknown ids are
// absent.
func (s *Store) PIISubjects(ctx context.Context, ids ...string) (map[string]PIISubject, error) {
	return findByIDs(ctx, s.countedCollection(CollPIISubjects), "subjects", ids, func(p PIISubject) string { return p.ID })
}

// PIISubjectsByAnchor loads every subject whose data was seen beside the
// anchor (the blind index of an email or phone number).
func (s *Store) PIISubjectsByAnchor(ctx context.Context, anchors ...string) ([]PIISubject, error) {
	subs, err := findAll[PIISubject](ctx, s.countedCollection(CollPIISubjects), bson.M{"anchors": bson.M{"$in": anchors}})
	if err != nil {
		return nil, fmt.Errorf("store: find subjects by anchor: %w", err)
	}
	return subs, nil
}

// TouchPIISubject adds t to the subject if its current generation is
// live and returns it as it is after; ok is false (nothing written) when
// the subject was never seen or is erased.
func (s *Store) TouchPIISubject(ctx context.Context, t PIITouch) (sub PIISubject, ok bool, err error) {
	inc := bson.M{}
	for k, n := range t.Held {
		inc["held."+k] = n
	}
	for k, n := range t.Places {
		inc["places."+k] = n
	}
	set := bson.M{"last_seen_at": bsonTime(t.At)}
	update := bson.M{"$set": set}
	if t.ExpireAt != nil {
		set["expire_at"] = bsonTime(*t.ExpireAt)
	}
	if len(inc) > 0 {
		update["$inc"] = inc
	}
	if len(t.Anchors) > 0 {
		update["$addToSet"] = bson.M{"anchors": bson.M{"$each": t.Anchors}}
	}
	res := s.countedCollection(CollPIISubjects).FindOneAndUpdate(ctx,
		bson.M{"_id": t.SubjectID, "wrapped_key": bson.M{"$exists": true}}, update,
		options.FindOneAndUpdate().SetReturnDocument(options.After))
	if err := res.Decode(&sub); err != nil {
		if err = normalise(err); errors.Is(err, ErrNotFound) {
			return PIISubject{}, false, nil
		}
		return PIISubject{}, false, fmt.Errorf("store: touch subject %s: %w", t.SubjectID, err)
	}
	return sub, true, nil
}

// CreatePIISubject stores sub (a new key pair, generation sub.Generation)
// unless another writer stored a live one first, and returns the one that
// holds: a subject seen for the first time is inserted; an erased one
// (no key) becomes sub's generation, the next after the erased one, with
// its erasures kept.
func (s *Store) CreatePIISubject(ctx context.Context, sub PIISubject) (PIISubject, error) {
	coll := s.countedCollection(CollPIISubjects)
	sub.CreatedAt, sub.LastSeenAt = bsonTime(sub.CreatedAt), bsonTime(sub.LastSeenAt)
	_, err := coll.InsertOne(ctx, sub)
	if err == nil {
		return sub, nil
	}
	if !isDuplicate(err) {
		return PIISubject{}, fmt.Errorf("store: create subject %s: %w", sub.ID, normalise(err))
	}
	held, err := s.PIISubject(ctx, sub.ID)
	if err != nil {
		return PIISubject{}, err
	}
	if held.Live() {
		return held, nil // another writer's key pair won
	}
	set := bson.M{"generation": held.Generation + 1, "public_key": sub.PublicKey, "wrapped_key": sub.WrappedKey,
		"last_seen_at": sub.LastSeenAt, "held": sub.Held, "places": sub.Places}
	if sub.ExpireAt != nil {
		set["expire_at"] = bsonTime(*sub.ExpireAt)
	}
	update := bson.M{"$set": set}
	if len(sub.Anchors) > 0 {
		update["$addToSet"] = bson.M{"anchors": bson.M{"$each": sub.Anchors}}
	}
	// Renewed only as it was read; when another writer renewed it first,
	// its generation is the one read back.
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": sub.ID, "generation": held.Generation, "wrapped_key": bson.M{"$exists": false}}, update); err != nil {
		return PIISubject{}, fmt.Errorf("store: renew subject %s: %w", sub.ID, normalise(err))
	}
	return s.PIISubject(ctx, sub.ID)
}

// ErasePIISubject destroys the private and public key of the subject's
// generation gen and records e; ok is false when that generation was not
// live (erased already, or renewed since).
func (s *Store) ErasePIISubject(ctx context.Context, id string, gen int, e PIISubjectErasure) (ok bool, err error) {
	e.ErasedAt = bsonTime(e.ErasedAt)
	res, err := s.countedCollection(CollPIISubjects).UpdateOne(ctx,
		bson.M{"_id": id, "generation": gen, "wrapped_key": bson.M{"$exists": true}},
		bson.M{"$unset": bson.M{"wrapped_key": "", "public_key": "", "held": "", "places": ""},
			"$push": bson.M{"erasures": e}})
	if err != nil {
		return false, fmt.Errorf("store: erase subject %s: %w", id, normalise(err))
	}
	return res.MatchedCount == 1, nil
}

// RecordPIIResolution stores r (its id is the caller's).
func (s *Store) RecordPIIResolution(ctx context.Context, r PIIResolution) error {
	r.At = bsonTime(r.At)
	if _, err := s.countedCollection(CollPIIResolutions).InsertOne(ctx, r); err != nil && !isDuplicate(err) {
		return fmt.Errorf("store: record resolution: %w", normalise(err))
	}
	return nil
}

// PIIResolutions counts the resolutions recorded for subject.
func (s *Store) PIIResolutions(ctx context.Context, subject string) (int64, error) {
	n, err := s.countedCollection(CollPIIResolutions).CountDocuments(ctx, bson.M{"subject_id": subject})
	if err != nil {
		return 0, fmt.Errorf("store: count resolutions of %s: %w", subject, normalise(err))
	}
	return n, nil
}

// LivePIISubjects pages the subjects that hold a key, in id order after
// the id after ("" from the start), at most limit of them.
func (s *Store) LivePIISubjects(ctx context.Context, after string, limit int) ([]PIISubject, error) {
	filter := bson.M{"wrapped_key": bson.M{"$exists": true}}
	if after != "" {
		filter["_id"] = bson.M{"$gt": after}
	}
	subs, err := findAll[PIISubject](ctx, s.countedCollection(CollPIISubjects), filter,
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("store: page subjects: %w", err)
	}
	return subs, nil
}

// RewrapPIISubject replaces the wrapped private key of the subject's
// generation gen by wrapped, if it still is old (an erasure or another
// rewrap meanwhile leaves it); ok says whether it did.
func (s *Store) RewrapPIISubject(ctx context.Context, id string, gen int, old, wrapped []byte) (ok bool, err error) {
	res, err := s.countedCollection(CollPIISubjects).UpdateOne(ctx, bson.M{"_id": id, "generation": gen, "wrapped_key": old},
		bson.M{"$set": bson.M{"wrapped_key": wrapped}})
	if err != nil {
		return false, fmt.Errorf("store: rewrap subject %s: %w", id, normalise(err))
	}
	return res.MatchedCount == 1, nil
}
