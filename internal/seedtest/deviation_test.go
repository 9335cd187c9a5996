package seedtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/seedtest"
)

// TestDeviationRowIsTheSeedsRowOfTheClause: the row is found by its seed
// and a clause it contains, and no row is "".
func TestDeviationRowIsTheSeedsRowOfTheClause(t *testing.T) {
	assert.Contains(t, seedtest.DeviationRow(t, "003", "`priority` enum"), "kept strict for consumers too")
	assert.Empty(t, seedtest.DeviationRow(t, "001", "`priority` enum"), "another seed's row")
	assert.Empty(t, seedtest.DeviationRow(t, "003", "no such clause"))
}
