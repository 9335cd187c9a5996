// Package jsonbodytest builds the nested documents the depth limit's tests
// try every outside-facing parser with.
package jsonbodytest

import "strings"

// Kinds are the two ways JSON nests: objects and arrays.
var Kinds = []string{"object", "array"}

// Nested is a JSON value of depth objects ({"a":…}, kind "object") or
// arrays ([…], kind "array") inside each other around the number 1.
func Nested(kind string, depth int) string {
	open, end := `{"a":`, `}`
	if kind == "array" {
		open, end = "[", "]"
	}
	return strings.Repeat(open, depth) + "1" + strings.Repeat(end, depth)
}
