package objects

import (
	"context"
	"io"
)

// Error codes of a failed Put (fault.Error.Code), as task.failed reports
// them.
const (
	// CodeInvalidDestination: the bucket or key can never be written.
	CodeInvalidDestination = "INVALID_DESTINATION"
	// CodeStorage: the store failed; its Retryable says whether trying
	// again can help.
	CodeStorage = "STORAGE_ERROR"
)

// Object is one file to store.
type Object struct {
	// Bucket is the bucket a destination names; empty for the store's
	// own. A store may refuse buckets that are not its own.
	Bucket string
	// Key is the object's name within the bucket.
	Key string
	// ContentType is the object's media type; empty for none.
	ContentType string
	// Body is the object's content.
	Body io.Reader
}

// Store stores objects.
type Store interface {
	// Put stores obj, replacing an object of the same key, and returns
	// where it is (s3://bucket/key, a presigned https link, or
	// file:///path). A *fault.Error says whether a retry can help.
	Put(ctx context.Context, obj Object) (location string, err error)
}
