//go:build integration

package sub

import "testing"

func TestIntegration(t *testing.T) {}
