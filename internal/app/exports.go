package app

import (
	"context"
	"os"
	"path/filepath"

	"github.com/streamops/streamops/internal/history"
)

// ExportStore is where large exports go: the directory exports/ under
// STREAMOPS_DATA_DIR locally (default .streamops). On Lambda, S3 arrives
// with the deployment (STREAMOPS_EXPORT_BUCKET).
func ExportStore(_ context.Context) (history.ObjectStore, error) {
	dir := os.Getenv("STREAMOPS_DATA_DIR")
	if dir == "" {
		dir = ".streamops"
		if os.Getenv("AWS_LAMBDA_FUNCTION_NAME") != "" {
			dir = os.TempDir()
		}
	}
	return history.FileObjectStore{Dir: filepath.Join(dir, "exports")}, nil
}
