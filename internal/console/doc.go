// Package console serves the operations console, a browser client of the
// /api routes, under /console from the api function: the page, and the
// script and stylesheet built from console/ (Preact, bundled by esbuild)
// and embedded in the binary, so it needs no network beyond the API
// itself.
//
// What must not live here: data or actions of any kind. The console reads
// and changes state only through the /api routes with the caller's token;
// this package serves static files, the same to everyone, unauthenticated
// like /api/openapi.json.
package console
