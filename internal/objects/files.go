package objects

import (
	"context"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/streamops/streamops/internal/fault"
)

var bucketName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// Files stores objects in a directory: an object of a named bucket as
// Dir/<bucket>/<key>, one of the store's own bucket as
// Dir/<DefaultBucket>/<key>, or Dir/<key> when DefaultBucket is empty.
// Keys cannot escape their bucket.
type Files struct {
	// Dir is the root directory.
	Dir string
	// DefaultBucket is the directory of objects without a bucket; empty
	// for Dir itself.
	DefaultBucket string
}

// Put writes the object atomically and returns its file:// URL.
func (f Files) Put(_ context.Context, obj Object) (string, error) {
	bucket := obj.Bucket
	if bucket == "" {
		bucket = f.DefaultBucket
	}
	if bucket != "" && (!bucketName.MatchString(bucket) || strings.Trim(bucket, ".") == "") {
		return "", fault.Permanent(CodeInvalidDestination, "bucket %q is not a bucket name", bucket)
	}
	key := path.Clean("/" + obj.Key) // ".." stops at the bucket
	if key == "/" || strings.HasSuffix(obj.Key, "/") {
		return "", fault.Permanent(CodeInvalidDestination, "object key %q names no file", obj.Key)
	}
	p := filepath.Join(f.Dir, bucket, filepath.FromSlash(key))
	if err := WriteFile(p, obj.Body); err != nil {
		return "", fault.Retryable(CodeStorage, err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// WriteFile writes r to path through a temporary file and a rename, so a
// reader never sees half a file.
func WriteFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := io.Copy(f, r)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
	}
	return werr
}
