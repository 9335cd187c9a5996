package nested

import "testing"

func TestNested(t *testing.T) {}
