package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/streamops/streamops/internal/history"
)

// ExportLinkTTL is how long the link to an exported file stays valid.
const ExportLinkTTL = 15 * time.Minute

// ExportStore is where exports too large for a response go: the S3 bucket
// STREAMOPS_EXPORT_BUCKET when set (answered with a presigned link), else the
// directory exports/ under STREAMOPS_DATA_DIR (default .streamops).
func ExportStore(ctx context.Context) (history.ObjectStore, error) {
	if bucket := os.Getenv("STREAMOPS_EXPORT_BUCKET"); bucket != "" {
		awsCfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("app: exports to S3: %w", err)
		}
		client := s3.NewFromConfig(awsCfg)
		return s3Exports{bucket: bucket, client: client, presign: s3.NewPresignClient(client)}, nil
	}
	dir := os.Getenv("STREAMOPS_DATA_DIR")
	if dir == "" {
		dir = ".streamops"
	}
	return history.FileObjectStore{Dir: filepath.Join(dir, "exports")}, nil
}

// s3Exports stores exports in S3 and links them with a presigned GET.
type s3Exports struct {
	bucket  string
	client  *s3.Client
	presign *s3.PresignClient
}

// Put uploads the export (server-side encrypted) and returns a presigned
// link valid for ExportLinkTTL.
func (e s3Exports) Put(ctx context.Context, key string, r io.Reader) (string, error) {
	_, err := e.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(e.bucket), Key: aws.String(key), Body: r,
		ServerSideEncryption: types.ServerSideEncryptionAes256})
	if err != nil {
		return "", fmt.Errorf("app: upload export: %w", err)
	}
	req, err := e.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(e.bucket), Key: aws.String(key)},
		s3.WithPresignExpires(ExportLinkTTL))
	if err != nil {
		return "", fmt.Errorf("app: link export: %w", err)
	}
	return req.URL, nil
}
