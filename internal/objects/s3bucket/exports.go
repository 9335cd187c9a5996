package s3bucket

import (
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/streamops/streamops/internal/awsenv"
	"github.com/streamops/streamops/internal/objects"
)

// ExportLinkTTL is how long the link to an exported file stays valid.
const ExportLinkTTL = 15 * time.Minute

// ExportStore is where exports too large for a response go: the S3 bucket
// when one is named (STREAMOPS_EXPORT_BUCKET; answered with a presigned
// link), else the directory exports/ under dir (STREAMOPS_DATA_DIR,
// default .streamops). It lives here, not in package app, so that only the
// functions that export (api) link the S3 client.
func ExportStore(bucket, dir string) (objects.Store, error) {
	if bucket != "" {
		client := s3.NewFromConfig(awsenv.Config())
		return Bucket{Client: client, Bucket: bucket, Presign: s3.NewPresignClient(client), LinkTTL: ExportLinkTTL}, nil
	}
	if dir == "" {
		dir = ".streamops"
	}
	return objects.Files{Dir: filepath.Join(dir, "exports")}, nil
}
