package jsonbody_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/jsonbody"
)

func TestSkipValueFindsTheEndOfEachKindOfValue(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want int
	}{
		{`"a\"b",1`, 6},
		{`{"k":"}"},`, 9},
		{`[1,[2,{"x":"]"}]] `, 17},
		{`123.5e3}`, 7},
		{`true`, 4},
		{`null,`, 4},
		{`"unterminated`, -1},
		{`{"k":[1,2}`, -1},
		{`{"k":"\`, -1},
		{``, -1},
	} {
		assert.Equal(t, tc.want, jsonbody.SkipValue([]byte(tc.doc), 0), tc.doc)
	}
	assert.Equal(t, 3, jsonbody.SkipSpace([]byte(" \t\n{"), 0))
}
