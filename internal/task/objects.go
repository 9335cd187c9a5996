package task

import (
	"net/url"
	"strings"

	"github.com/streamops/streamops/internal/fault"
)

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
