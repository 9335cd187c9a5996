// Package apigw adapts API Gateway HTTP API (payload v2) Lambda invocations to
// standard net/http handlers and back, so the HTTP functions are ordinary
// http.Handlers that run unchanged behind API Gateway, in the local stack and
// in tests. It is the only HTTP-side package that imports aws-lambda-go.
//
// What must not live here: routes, domain errors or their status codes
// (package httpapi), anything a handler decides.
package apigw
