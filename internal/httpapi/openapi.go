package httpapi

import (
	_ "embed"
	"net/http"
)

// OpenAPIDocument is the OpenAPI 3.1 description of every route.
//
//go:embed openapi.json
var OpenAPIDocument []byte

func (a *api) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPIDocument)
}
