// Package jsonbody checks a request body before anything reads it: one JSON
// value, nested at most MaxDepth deep (the one place the nesting limit of
// everything that comes from outside is set: webhook and API bodies here,
// Kafka records with CheckDepth and MaxEventDepth), and no object that
// names a key twice. JSON parsers disagree on
// duplicate keys (encoding/json keeps the last, gjson finds the first), so a
// body with them could be verified, routed and stored as different
// documents; refusing them makes every reader see the same one.
//
// It only checks; it never decodes into Go values or changes the bytes.
//
// What must not live here: schema validation (package events), anything that
// decodes the body for use.
package jsonbody
