package store

import (
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"

	"github.com/streamops/streamops/events"
)

// NullString is a document field that is absent, null or a string: seed
// 001's metadata.user_id (Optional[str]), which holds seed 003's
// `"userId": null` as null, so an event read back, republished, replayed or
// exported says null where it was null and nothing where it said nothing.
type NullString struct{ events.NullString }

// UserIDOf is the stored form of an envelope's metadata.userId.
func UserIDOf(n events.NullString) NullString { return NullString{n} }

// IsZero reports an absent field: omitempty leaves it out of the document.
func (n NullString) IsZero() bool { return !n.Present }

// MarshalBSONValue encodes null or the string.
func (n NullString) MarshalBSONValue() (bsontype.Type, []byte, error) {
	if !n.Valid {
		return bson.TypeNull, nil, nil
	}
	return bson.MarshalValue(n.Value)
}

// UnmarshalBSONValue decodes null or a string; a stored field is present.
func (n *NullString) UnmarshalBSONValue(t bsontype.Type, raw []byte) error {
	switch t {
	case bson.TypeNull:
		n.NullString = events.Null
		return nil
	case bson.TypeString:
		var s string
		if err := bson.UnmarshalValue(t, raw, &s); err != nil {
			return err
		}
		n.NullString = events.String(s)
		return nil
	}
	return fmt.Errorf("store: a string or null, not BSON %s", t)
}
