// Package httpapi is StreamOps' HTTP surface as plain net/http handlers: the
// webhook endpoint and the /api routes. Domain errors become status codes in
// one place (errors.go), always as the JSON body
// {"error":{"code":"…","message":"…"}}. The OpenAPI document the API serves
// (openapi.json) is also the one list of allowed values of every enumerated
// query parameter, enforced in one place before each route runs
// (params.go). It does not import aws-lambda-go: internal/apigw puts these
// handlers behind API Gateway.
//
// Response bodies are this package's own types (responses.go), mapped from
// the store's documents field by field, so the MongoDB schema is not the
// API's: a document may change shape without the API moving, and the
// OpenAPI tests hold the API to openapi.json.
//
// What must not live here: domain decisions (packages ingest, submit,
// history), storage (package store), Lambda types (package apigw).
package httpapi
