//go:build browser

package tagged

import "testing"

func TestInBrowser(t *testing.T) {}
