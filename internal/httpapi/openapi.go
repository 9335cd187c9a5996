package httpapi

import (
	_ "embed"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// OpenAPIDocument is the OpenAPI 3.1 description of every route. Its enums
// are also the allowed values the handlers enforce (queryEnums).
//
//go:embed openapi.json
var OpenAPIDocument []byte

// errNotAcceptable: the Accept header admits no JSON (406).
var errNotAcceptable = errors.New("the OpenAPI document is JSON: send Accept: application/json (or */*), or no Accept header")

func (a *api) openAPI(w http.ResponseWriter, r *http.Request) {
	if !acceptsJSON(r.Header.Values("Accept")) {
		writeError(w, r, a.log, errNotAcceptable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPIDocument)
}

// acceptsJSON reports whether Accept headers admit the document: none (or
// blank), or a media range */*, application/*, application/json or
// application/openapi+json whose q is above 0.
func acceptsJSON(accept []string) bool {
	if strings.TrimSpace(strings.Join(accept, "")) == "" {
		return true
	}
	for _, h := range accept {
		for part := range strings.SplitSeq(h, ",") {
			mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err != nil || f <= 0 {
					continue
				}
			}
			switch mediaType {
			case "*/*", "application/*", "application/json", "application/openapi+json":
				return true
			}
		}
	}
	return false
}
