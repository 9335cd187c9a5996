package task

import (
	"context"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/streamops/streamops/internal/fault"
)

// Object is one file to store.
type Object struct {
	// Bucket is the bucket a task's destination names; empty for the
	// store's own. A store may refuse buckets that are not its own.
	Bucket      string
	Key         string
	ContentType string
	Body        []byte
}

// ObjectStore stores exports and reports. S3Objects writes to S3 (on AWS),
// FileObjects to a directory (the local stack).
type ObjectStore interface {
	// Put stores obj, replacing an object of the same key, and returns
	// where it is (s3://bucket/key or file:///path). A *fault.Error says whether
	// a retry can help.
	Put(ctx context.Context, obj Object) (location string, err error)
}

// parseDestination splits a task's destination "s3://bucket/key" (or a
// bare key) into bucket and key.
func parseDestination(dest string) (bucket, key string, err error) {
	if !strings.Contains(dest, "://") {
		return "", strings.TrimPrefix(dest, "/"), nil
	}
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "s3" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return "", "", fault.Permanent(CodeInvalidDestination, "destination must be s3://bucket/key or a key")
	}
	return u.Host, strings.TrimPrefix(u.Path, "/"), nil
}

var bucketName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// FileObjects stores objects under Dir as Dir/<bucket>/<key> ("local" for
// the default bucket). Keys cannot escape Dir.
type FileObjects struct{ Dir string }

// Put writes the object atomically.
func (f FileObjects) Put(_ context.Context, obj Object) (string, error) {
	bucket := obj.Bucket
	if bucket == "" {
		bucket = "local"
	}
	if !bucketName.MatchString(bucket) || strings.Trim(bucket, ".") == "" {
		return "", fault.Permanent(CodeInvalidDestination, "bucket %q is not a bucket name", bucket)
	}
	key := path.Clean("/" + obj.Key) // ".." stops at the bucket
	if key == "/" || strings.HasSuffix(obj.Key, "/") {
		return "", fault.Permanent(CodeInvalidDestination, "object key %q names no file", obj.Key)
	}
	p := filepath.Join(f.Dir, bucket, filepath.FromSlash(key))
	if err := writeFileAtomic(p, obj.Body); err != nil {
		return "", fault.Retryable(CodeStorage, err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}
