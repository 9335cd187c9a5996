package s3bucket

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects"
)

// S3API is the part of the S3 client Bucket uses; *s3.Client implements it.
type S3API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// PresignAPI presigns downloads; *s3.PresignClient implements it.
type PresignAPI interface {
	PresignGetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.PresignOptions)) (*v4.PresignedHTTPRequest, error)
}

// Bucket stores objects in one S3 bucket, server-side encrypted: the
// objects.Store of the deployed functions. A destination naming another
// bucket is refused: a caller may not write wherever the function's role
// happens to reach.
type Bucket struct {
	// Client uploads. Required.
	Client S3API
	// Bucket is the one bucket written. Required.
	Bucket string
	// Presign, when set, makes Put answer a presigned GET link valid for
	// LinkTTL instead of s3://bucket/key. Default: none.
	Presign PresignAPI
	// LinkTTL is how long a presigned link stays valid. Default 15 min.
	LinkTTL time.Duration
}

// Put uploads the object and returns s3://bucket/key, or a presigned link
// with Presign.
func (s Bucket) Put(ctx context.Context, obj objects.Object) (string, error) {
	if obj.Bucket != "" && obj.Bucket != s.Bucket {
		return "", fault.Permanent(objects.CodeInvalidDestination, "destination bucket %q is not the export bucket", obj.Bucket)
	}
	in := &s3.PutObjectInput{
		Bucket:               aws.String(s.Bucket),
		Key:                  aws.String(obj.Key),
		Body:                 obj.Body,
		ServerSideEncryption: types.ServerSideEncryptionAes256,
	}
	if obj.ContentType != "" {
		in.ContentType = aws.String(obj.ContentType)
	}
	if _, err := s.Client.PutObject(ctx, in); err != nil {
		return "", classifyS3(err)
	}
	if s.Presign == nil {
		return fmt.Sprintf("s3://%s/%s", s.Bucket, obj.Key), nil
	}
	ttl := s.LinkTTL
	if ttl == 0 {
		ttl = 15 * time.Minute
	}
	req, err := s.Presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.Bucket), Key: aws.String(obj.Key)},
		s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fault.Retryable(objects.CodeStorage, fmt.Errorf("link %s: %w", obj.Key, err))
	}
	return req.URL, nil
}

// classifyS3 makes a missing bucket or a refused access permanent: they
// need an operator, not a retry.
func classifyS3(err error) error {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchBucket", "AccessDenied", "InvalidBucketName", "AllAccessDisabled":
			return &fault.Error{Code: objects.CodeStorage, Message: "S3 refused the upload: " + api.ErrorCode(), Err: err}
		}
	}
	return fault.Retryable(objects.CodeStorage, err)
}
