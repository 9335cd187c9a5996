package task

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/streamops/streamops/internal/fault"
)

// S3API is the part of the S3 client S3Objects uses; *s3.Client implements
// it.
type S3API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// S3Objects stores objects in one S3 bucket. A destination naming another
// bucket is refused: a task may not write wherever the function's role
// happens to reach.
type S3Objects struct {
	Client S3API
	Bucket string
}

// Put uploads the object with server-side encryption.
func (s S3Objects) Put(ctx context.Context, obj Object) (string, error) {
	if obj.Bucket != "" && obj.Bucket != s.Bucket {
		return "", fault.Permanent(CodeInvalidDestination, "destination bucket %q is not the export bucket", obj.Bucket)
	}
	_, err := s.Client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:               aws.String(s.Bucket),
		Key:                  aws.String(obj.Key),
		Body:                 bytes.NewReader(obj.Body),
		ContentType:          aws.String(obj.ContentType),
		ServerSideEncryption: types.ServerSideEncryptionAes256,
	})
	if err != nil {
		return "", classifyS3(err)
	}
	return fmt.Sprintf("s3://%s/%s", s.Bucket, obj.Key), nil
}

// classifyS3 makes a missing bucket or a refused access permanent: they
// need an operator, not a retry.
func classifyS3(err error) error {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchBucket", "AccessDenied", "InvalidBucketName", "AllAccessDisabled":
			return &fault.Error{Code: CodeStorage, Message: "S3 refused the upload: " + api.ErrorCode(), Err: err}
		}
	}
	return fault.Retryable(CodeStorage, err)
}
