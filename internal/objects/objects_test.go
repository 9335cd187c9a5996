package objects_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects"
)

// codeOf is the code of a *fault.Error and whether it is retryable.
func codeOf(err error) (string, bool) {
	if fe, ok := errors.AsType[*fault.Error](err); ok {
		return fe.Code, fe.Retryable
	}
	return "", false
}

type fakeS3 struct {
	err error
	in  *s3.PutObjectInput
}

func (f *fakeS3) PutObject(_ context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	f.in = in
	return &s3.PutObjectOutput{}, f.err
}

func TestS3StaysInItsBucket(t *testing.T) {
	f := &fakeS3{}
	objs := objects.S3{Client: f, Bucket: "streamops-exports"}
	loc, err := objs.Put(context.Background(), objects.Object{Bucket: "streamops-exports", Key: "a/b.csv", ContentType: "text/csv", Body: strings.NewReader("x")})
	require.NoError(t, err)
	assert.Equal(t, "s3://streamops-exports/a/b.csv", loc)
	assert.Equal(t, "text/csv", aws.ToString(f.in.ContentType))

	_, err = objs.Put(context.Background(), objects.Object{Bucket: "someone-elses", Key: "a"})
	code, retryable := codeOf(err)
	assert.Equal(t, objects.CodeInvalidDestination, code)
	assert.False(t, retryable)

	for apiCode, retry := range map[string]bool{"NoSuchBucket": false, "AccessDenied": false, "SlowDown": true} {
		_, err = objects.S3{Client: &fakeS3{err: &smithy.GenericAPIError{Code: apiCode}}, Bucket: "b"}.Put(context.Background(), objects.Object{Key: "k"})
		_, retryable := codeOf(err)
		assert.Equal(t, retry, retryable, apiCode)
	}
}

func TestFilesKeepKeysInsideTheirDirectory(t *testing.T) {
	dir := t.TempDir()
	loc, err := objects.Files{Dir: dir, DefaultBucket: "local"}.Put(context.Background(), objects.Object{Key: "../../etc/passwd", Body: strings.NewReader("x")})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(loc, "file://"+filepath.ToSlash(dir)), loc)
	_, err = os.Stat(filepath.Join(dir, "local", "etc", "passwd"))
	assert.NoError(t, err)
}

func TestFilesWithoutADefaultBucketWriteUnderTheirDirectory(t *testing.T) {
	dir := t.TempDir()
	loc, err := objects.Files{Dir: dir}.Put(context.Background(), objects.Object{Key: "exports/a.ndjson", Body: strings.NewReader("{}\n")})
	require.NoError(t, err)
	assert.Equal(t, "file://"+filepath.ToSlash(filepath.Join(dir, "exports", "a.ndjson")), loc)
	f, err := os.Open(filepath.Join(dir, "exports", "a.ndjson"))
	require.NoError(t, err)
	defer f.Close()
	body, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(body))
}
