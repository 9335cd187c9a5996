package s3bucket_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/objects/s3bucket"
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
	objs := s3bucket.Bucket{Client: f, Bucket: "streamops-exports"}
	loc, err := objs.Put(context.Background(), objects.Object{Bucket: "streamops-exports", Key: "a/b.csv", ContentType: "text/csv", Body: strings.NewReader("x")})
	require.NoError(t, err)
	assert.Equal(t, "s3://streamops-exports/a/b.csv", loc)
	assert.Equal(t, "text/csv", aws.ToString(f.in.ContentType))

	_, err = objs.Put(context.Background(), objects.Object{Bucket: "someone-elses", Key: "a"})
	code, retryable := codeOf(err)
	assert.Equal(t, objects.CodeInvalidDestination, code)
	assert.False(t, retryable)

	for apiCode, retry := range map[string]bool{"NoSuchBucket": false, "AccessDenied": false, "SlowDown": true} {
		_, err = s3bucket.Bucket{Client: &fakeS3{err: &smithy.GenericAPIError{Code: apiCode}}, Bucket: "b"}.Put(context.Background(), objects.Object{Key: "k"})
		_, retryable := codeOf(err)
		assert.Equal(t, retry, retryable, apiCode)
	}
}
