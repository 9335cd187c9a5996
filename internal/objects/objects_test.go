package objects_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/objects"
)

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
